// Implicit-return stack of the CTTE front end (docs/encoder-behaviour.md section 11.1): the
// stack's size and its pop/push step. ctte_frontend holds the stack (oldest entry at 0, the
// count says how many entries are valid) and its prediction registers; this package is the
// combinational step it applies to its working copy for one traced beat. The software side is
// the oracle's implicit-return model.
package ctte_return_stack_pkg;
  import ctte_pkg::*;

  localparam int unsigned RasSlots = 32;  // storage slots; RAS_DEPTH (<= RasSlots) are used

  // One beat's stack step: a return or coroutine swap pops (the popped link becomes the
  // prediction), then a call or coroutine swap pushes `link`; a push onto a full stack (`depth`
  // entries) evicts the oldest entry.
  function automatic void ras_pop_push(input logic [3:0] itype, input logic [5:0] depth,
                                       input logic [63:0] link,
                                       inout logic [63:0] ras [RasSlots],
                                       inout logic [5:0] ras_n, inout logic predv,
                                       inout logic [63:0] pred);
    if ((itype == ItypeReturn || itype == ItypeCoroutineSwap) && ras_n != 6'd0) begin
      ras_n = ras_n - 6'd1;
      pred = ras[ras_n[4:0]];
      predv = 1'b1;
    end
    if (itype == ItypeIndirectCall || itype == ItypeDirectCall || itype == ItypeCoroutineSwap) begin
      if (ras_n == depth) begin
        for (int i = 1; i < RasSlots; i++) ras[i - 1] = ras[i];
        ras_n = ras_n - 6'd1;
      end
      ras[ras_n[4:0]] = link;
      ras_n = ras_n + 6'd1;
    end
  endfunction

endpackage
