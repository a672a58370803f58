// Instruction forms and records of the optional features with their own rules
// (docs/encoder-behaviour.md sections 11.7 and 11.9); the software side is oracle/seq_jump.cc
// and oracle/config_message.cc.
package ctte_feature_pkg;
  import ctte_pkg::*;

  localparam logic [5:0] TcConfig = 6'd56;       // vendor TCODE: configuration message
  localparam logic [5:0] ConfigVersion = 6'd1;

  // Each form reads only some of the instruction's bits.
  /* verilator lint_off UNUSEDSIGNAL */
  // rd of LUI/AUIPC (rd != x0) or C.LUI (rd != x0, x2, nzimm != 0); 0 when not a setter.
  function automatic logic [4:0] sj_setter_rd(logic [31:0] insn);
    if (insn[1:0] == 2'b01) begin
      if (insn[15:13] == 3'b011 && insn[11:7] != 5'd0 && insn[11:7] != 5'd2 &&
          {insn[12], insn[6:2]} != 6'd0) begin
        return insn[11:7];
      end
      return 5'd0;
    end
    if (insn[1:0] != 2'b11) return 5'd0;
    if (insn[6:0] == 7'h37 || insn[6:0] == 7'h17) return insn[11:7];
    return 5'd0;
  endfunction

  // rs1 of JALR / C.JR / C.JALR; 0 when none of them.
  function automatic logic [4:0] sj_jalr_rs1(logic [31:0] insn);
    if (insn[1:0] == 2'b10) begin
      if (insn[15:13] == 3'b100 && insn[6:2] == 5'd0) return insn[11:7];
      return 5'd0;
    end
    if (insn[1:0] == 2'b11 && insn[6:0] == 7'h67 && insn[14:12] == 3'd0) return insn[19:15];
    return 5'd0;
  endfunction

  /* verilator lint_on UNUSEDSIGNAL */

  // Configuration message: TCODE 56, VERSION(6), COMPILED, ENABLED, DEPTH.
  function automatic rec_t mk_config(logic [7:0] compiled, logic [7:0] enabled,
                                     logic [5:0] depth);
    return mk_rec({ConfigVersion, TcConfig}, 4'd12, 2'd3, {56'd0, compiled}, {56'd0, enabled},
                  {58'd0, depth});
  endfunction

endpackage
