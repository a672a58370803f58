// Per-beat record forming of the CTTE front end (docs/encoder-behaviour.md section 4, steps 2
// and 3), as functions ctte_frontend applies to its working copy of the state: the form (HTM or
// BTM) of a periodic sync and of an owed indirect message; how a traced beat that is not a trap
// advances I-CNT and the branch history, and the records that overflow (ResourceFull) or a
// taken branch in BTM (DirectBranch) append to the beat's list; which beats owe a message.
package ctte_beat_pkg;
  import ctte_pkg::*;

  localparam logic [IcntBits-1:0] IcntMax = {IcntBits{1'b1}};

  // Step 2: the periodic sync (SYNC=2) at `addr_hw` (address / 2); HIST only in HTM.
  function automatic rec_t mk_periodic_sync(logic htm, logic [1:0] btype,
                                            logic [IcntBits-1:0] icnt, logic [63:0] addr_hw,
                                            logic [HistBits-1:0] hist);
    if (htm) return mk_indirect_branch_hist_sync(SyncPeriodic, btype, icnt, addr_hw, hist);
    return mk_indirect_branch_sync(SyncPeriodic, btype, icnt, addr_hw);
  endfunction

  // Step 2: the owed indirect message with U-ADDR `uaddr`; HIST only in HTM.
  function automatic rec_t mk_owed_indirect(logic htm, logic [1:0] btype,
                                            logic [IcntBits-1:0] icnt, logic [63:0] uaddr,
                                            logic [HistBits-1:0] hist);
    if (htm) return mk_indirect_branch_hist(btype, icnt, uaddr, hist);
    return mk_indirect_branch(btype, icnt, uaddr);
  endfunction

  // A retiring beat whose target the decoder cannot infer (owes an indirect message).
  function automatic logic is_uninferable_retiring(logic [3:0] t);
    return t inside {ItypeTrapReturn, ItypeUninferableJump, ItypeIndirectCall, ItypeIndirectJump,
                     ItypeCoroutineSwap, ItypeReturn, ItypeOtherIndirectLink};
  endfunction

  // Counts a non-trap beat of `iretire` half-words of type `itype`: a ResourceFull(RCODE 0)
  // when I-CNT would overflow; in HTM a conditional branch shifts its bit into HIST (a
  // ResourceFull(RCODE 1) when HIST is full), in BTM a taken branch forms a DirectBranch. Each
  // record goes to r[base + nbeat] and counts in nbeat and nonsync.
  function automatic void count_beat(input logic [3:0] itype, input logic [7:0] iretire,
                                     input logic htm, input logic [1:0] base,
                                     inout rec_t r [3], inout logic [1:0] nbeat,
                                     inout logic [1:0] nonsync,
                                     inout logic [IcntBits-1:0] icnt,
                                     inout logic [HistBits-1:0] hist);
    logic [IcntBits:0]   icnt_sum;
    logic [HistBits-1:0] hist_sh;
    icnt_sum = {1'b0, icnt} + {{(IcntBits - 7){1'b0}}, iretire};
    if (icnt_sum > {1'b0, IcntMax}) begin
      r[base + nbeat] = mk_resource_full(RcodeIcntFull, icnt64(icnt));
      nbeat = nbeat + 2'd1;
      nonsync = nonsync + 2'd1;
      icnt = '0;
    end
    icnt = icnt + {{(IcntBits - 8){1'b0}}, iretire};
    if (itype == ItypeNotTakenBranch || itype == ItypeTakenBranch) begin
      if (htm) begin
        hist_sh = {hist[HistBits-2:0], itype == ItypeTakenBranch};
        if (hist_sh[HistBits-1]) begin
          r[base + nbeat] = mk_resource_full(RcodeHistFull, hist64(hist_sh));
          nbeat = nbeat + 2'd1;
          nonsync = nonsync + 2'd1;
          hist = HistEmpty;
        end else begin
          hist = hist_sh;
        end
      end else if (itype == ItypeTakenBranch) begin
        r[base + nbeat] = mk_direct_branch(icnt);
        nbeat = nbeat + 2'd1;
        nonsync = nonsync + 2'd1;
        icnt = '0;
      end
    end
  endfunction

endpackage
