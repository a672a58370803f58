// Test-only top (image "assert-probe", built into build/tests/images/, never deployed): the
// real encoder plus two probes that fire on magic writes to register 0x3F0, so that tests can
// check how an image reports a failed RTL assertion ($error) and a $fatal. Same flat ports and
// parameters as ctte_encoder, verilated with the same class name (Vctte_encoder). It compiles
// repeated history with ctte_repeat's test seam TestSpanSync, so that enabling the feature and
// letting a periodic sync meet a held run fires the "repeat state spans a sync" assertion.
module ctte_assert_probe #(
  parameter logic [63:0] BUILD_ID = 64'd0,
  parameter int unsigned PROFILE_ID = 1,
  parameter int unsigned LOG_QDEPTH = 4,
  parameter int unsigned LOG_FIFO_DEPTH = 4,
  parameter int unsigned MUTANT = 0,
  parameter int unsigned RAS_DEPTH = 0,
  parameter int unsigned XLEN = 64,
  parameter int unsigned REPEAT_HIST = 0,
  parameter int unsigned REPEAT_BRANCH = 0,
  parameter int unsigned SEQ_JUMP = 0,
  parameter int unsigned FULL_ADDR = 0,
  parameter int unsigned CONFIG_MSG = 0
) (
  input  logic        clk_fabric,
  input  logic        clk_sink,
  input  logic        rst_n,
  input  logic        in_valid,
  input  logic [3:0]  in_itype,
  input  logic [63:0] in_iaddr,
  input  logic [7:0]  in_iretire,
  input  logic        in_ilastsize,
  input  logic [7:0]  in_priv,
  input  logic [63:0] in_context,
  input  logic [63:0] in_cause,
  input  logic [63:0] in_tval,
  input  logic [31:0] in_insn,
  input  logic        reg_we,
  input  logic [31:0] reg_addr,
  input  logic [31:0] reg_wdata,
  output logic [31:0] reg_rdata,
  input  logic        sink_ready,
  output logic        sink_valid,
  output logic [7:0]  sink_data,
  output logic        te_empty,
  output logic        te_stall_or_overflow
);

  ctte_encoder #(
    .BUILD_ID(BUILD_ID), .PROFILE_ID(PROFILE_ID), .LOG_QDEPTH(LOG_QDEPTH),
    .LOG_FIFO_DEPTH(LOG_FIFO_DEPTH), .MUTANT(MUTANT), .RAS_DEPTH(RAS_DEPTH), .XLEN(XLEN),
    .REPEAT_HIST(1 | REPEAT_HIST), .REPEAT_BRANCH(REPEAT_BRANCH), .TEST_SPAN_SYNC(1),
    .SEQ_JUMP(SEQ_JUMP), .FULL_ADDR(FULL_ADDR), .CONFIG_MSG(CONFIG_MSG)
  ) u_encoder (.*);

  always_ff @(posedge clk_fabric) begin
    if (rst_n && reg_we && reg_addr == 32'h3F0) begin
      assert (reg_wdata != 32'h0BAD_0BAD) else $error("probe assertion fired");
      if (reg_wdata == 32'hFA7A_1000) $fatal(1, "probe fatal");
    end
  end

endmodule
