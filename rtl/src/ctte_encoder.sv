// CTTE N-Trace encoder, XLEN 64 or 32 (the XLEN parameter): top level with flat ports (the model
// of the Verilator image). The ports are the same for both widths (in_iaddr is 64 bits): an
// XLEN 32 image zero-extends iaddr[31:0] and asserts that the upper half is zero, so a 64-bit
// address is never silently truncated (the runner refuses such a workload before the run).
//
//   ingress (fabric clk) -> ctte_frontend -> ctte_msgq (QDEPTH records) -> ctte_repeat
//     -> ctte_packer
//     -> ctte_async_fifo (fabric -> sink clk, Gray pointers) -> sink ready/valid
//   ctte_regs: TCI registers + vendor identity/counters/status on a fabric-clock bus.
//
// Profile parameters: ProfileId, LogQDepth, LogFifoDepth, XLEN (ctteProfile.Xlen); identity: BuildId (random per CMake
// configure), Mutant (0 = none; one contract-breaking change per id, docs/mutants.md).
module ctte_encoder #(
  parameter logic [63:0] BUILD_ID = 64'd0,
  parameter int unsigned PROFILE_ID = 1,
  parameter int unsigned LOG_QDEPTH = 4,
  parameter int unsigned LOG_FIFO_DEPTH = 4,
  parameter int unsigned MUTANT = 0,
  parameter int unsigned RAS_DEPTH = 0,  // implicit-return stack depth, 0..32 (0 = absent)
  parameter int unsigned XLEN = 64,      // address width, 32 or 64
  parameter int unsigned REPEAT_HIST = 0,   // repeated history compiled (1) or absent (0)
  parameter int unsigned REPEAT_BRANCH = 0, // RepeatBranch compiled (1) or absent (0)
  parameter int unsigned SEQ_JUMP = 0,   // sequential jump compiled (section 11.7)
  parameter int unsigned FULL_ADDR = 0,  // full addresses compiled (section 11.8)
  parameter int unsigned CONFIG_MSG = 0, // configuration message compiled (section 11.9)
  parameter int unsigned TEST_SPAN_SYNC = 0  // test only (assert-probe): see ctte_repeat
) (
  input  logic        clk_fabric,
  input  logic        clk_sink,
  input  logic        rst_n,
  // ingress (fabric domain); the core cannot be throttled
  input  logic        in_valid,
  input  logic [3:0]  in_itype,
  input  logic [63:0] in_iaddr,
  input  logic [7:0]  in_iretire,
  input  logic        in_ilastsize,
  input  logic [7:0]  in_priv,
  input  logic [63:0] in_context,
  input  logic [63:0] in_cause,
  input  logic [63:0] in_tval,
  input  logic [31:0] in_insn,     // raw instruction bits (sequential jump; ABI 3)
  // register bus (fabric domain)
  input  logic        reg_we,
  input  logic [31:0] reg_addr,
  input  logic [31:0] reg_wdata,
  output logic [31:0] reg_rdata,
  // trace sink (sink domain)
  input  logic        sink_ready,
  output logic        sink_valid,
  output logic [7:0]  sink_data,
  // status (fabric domain)
  output logic        te_empty,
  output logic        te_stall_or_overflow
);
  import ctte_pkg::*;

  // Sideband ingress fields are part of the interface but carry nothing this encoder emits
  // (no Ownership messages, no data trace).
  logic unused_ingress;
  assign unused_ingress = ^{in_ilastsize, in_priv, in_context, in_cause, in_tval};

  // The ingress address as the front end sees it: Xlen bits, zero-extended.
  localparam logic [63:0] AddrMask = XLEN >= 64 ? {64{1'b1}} : ((64'd1 << XLEN) - 64'd1);
  logic [63:0] iaddr;
  assign iaddr = in_iaddr & AddrMask;

  logic cfg_active, cfg_enable, cfg_tracing;
  logic [2:0] cfg_mode;
  logic [1:0] cfg_sync_mode;
  logic [3:0] cfg_sync_max;
  logic cfg_implicit_return, cfg_repeat_hist, cfg_repeat_branch;
  logic cfg_seq_jump, cfg_full_addr, cfg_config_msg;

  logic [1:0] enq_n;
  rec_t enq_rec0, enq_rec1, enq_rec2, q_head, head;
  logic q_empty, q_deq, r_empty, r_deq;
  logic [LOG_QDEPTH:0] q_free;
  logic ev_episode;
  logic [1:0] ev_dropped;
  logic [7:0] ev_halfwords;
  logic st_lost, st_window_open, st_close_waiting;

  logic out_full, out_push, out_eom, packer_busy, fifo_w_empty, fifo_true_empty;
  logic [7:0] out_byte;

  ctte_frontend #(.QFreeBits(LOG_QDEPTH + 1), .RasDepth(RAS_DEPTH), .Xlen(XLEN),
                  .Mutant(MUTANT), .SeqJump(SEQ_JUMP != 0), .FullAddr(FULL_ADDR != 0),
                  .ConfigMsg(CONFIG_MSG != 0), .RepeatHist(REPEAT_HIST != 0),
                  .RepeatBranch(REPEAT_BRANCH != 0)) u_frontend (
    .clk(clk_fabric), .rst_n,
    .cfg_active, .cfg_enable, .cfg_tracing, .cfg_mode, .cfg_sync_mode, .cfg_sync_max,
    .cfg_implicit_return, .cfg_repeat_hist, .cfg_repeat_branch,
    .cfg_seq_jump, .cfg_full_addr, .cfg_config_msg,
    .in_valid, .in_itype, .in_iaddr(iaddr), .in_iretire, .in_insn,
    .q_free, .enq_n, .enq_rec0, .enq_rec1, .enq_rec2,
    .ev_episode, .ev_dropped, .ev_halfwords, .st_lost, .st_window_open, .st_close_waiting
  );

  ctte_msgq #(.LogDepth(LOG_QDEPTH)) u_msgq (
    .clk(clk_fabric), .rst_n, .enq_n, .enq_rec0, .enq_rec1, .enq_rec2,
    .deq(q_deq), .head(q_head), .empty(q_empty), .free(q_free)
  );

  ctte_repeat #(
    .RepeatHist(REPEAT_HIST), .RepeatBranch(REPEAT_BRANCH), .TestSpanSync(TEST_SPAN_SYNC)
  ) u_repeat (
    .clk(clk_fabric), .rst_n, .cfg_repeat_hist, .cfg_repeat_branch,
    .q_head, .q_empty, .q_deq, .head, .empty(r_empty), .deq(r_deq)
  );

  ctte_packer #(.Mutant(MUTANT)) u_packer (
    .clk(clk_fabric), .rst_n, .head, .q_empty(r_empty), .q_deq(r_deq), .out_full, .out_push,
    .out_byte,
    .out_eom, .busy(packer_busy)
  );

  ctte_async_fifo #(.LogDepth(LOG_FIFO_DEPTH), .Width(8)) u_fifo (
    .w_clk(clk_fabric), .w_rst_n(rst_n), .w_push(out_push), .w_data(out_byte), .w_full(out_full),
    .w_empty(fifo_w_empty), .dbg_true_empty(fifo_true_empty),
    .r_clk(clk_sink), .r_rst_n(rst_n), .r_pop(sink_ready), .r_data(sink_data),
    .r_valid(sink_valid)
  );

  // A run held by the repeat stage is compression state, like a pending I-CNT or HIST: it is
  // not output owed, and a stop's closing correlation flushes it before trTeEmpty can read 1.
  assign te_empty = q_empty && !packer_busy && fifo_w_empty && !st_close_waiting;

  logic stall_ovf;
  assign te_stall_or_overflow = stall_ovf;

  ctte_regs #(
    .BuildId(BUILD_ID), .ProfileId(8'(PROFILE_ID)), .LogQDepth(LOG_QDEPTH),
    .LogFifoDepth(LOG_FIFO_DEPTH), .MutantId(8'(MUTANT)), .RasDepth(RAS_DEPTH),
    .Xlen(8'(XLEN)),
    .RepeatHist(REPEAT_HIST), .RepeatBranch(REPEAT_BRANCH),
    .SeqJump(SEQ_JUMP != 0), .FullAddr(FULL_ADDR != 0), .ConfigMsg(CONFIG_MSG != 0)
  ) u_regs (
    .clk(clk_fabric), .rst_n, .we(reg_we), .addr(reg_addr), .wdata(reg_wdata),
    .rdata(reg_rdata),
    .cfg_active, .cfg_enable, .cfg_tracing, .cfg_mode, .cfg_sync_mode, .cfg_sync_max,
    .cfg_implicit_return, .cfg_repeat_hist, .cfg_repeat_branch,
    .cfg_seq_jump, .cfg_full_addr, .cfg_config_msg,
    .st_empty(te_empty), .st_lost, .st_window_open, .st_close_waiting,
    .ev_msg(out_eom), .ev_byte(out_push), .ev_episode, .ev_dropped, .ev_halfwords,
    .st_stall_ovf(stall_ovf)
  );

  // trTeEmpty implies an empty output FIFO (checked against both pointers, simulation only).
  always_ff @(posedge clk_fabric) begin
    if (rst_n) begin
      assert (!te_empty || fifo_true_empty) else $error("trTeEmpty with bytes in the output FIFO");
      // An address wider than XLEN is refused, never truncated.
      assert (!in_valid || (in_iaddr & ~AddrMask) == 64'd0)
        else $error("ingress iaddr 0x%h is wider than XLEN %0d", in_iaddr, XLEN);
    end
  end

endmodule
