// Standing assertions of the CTTE front end (docs/rtl.md, "standing assertions"): an observer
// instantiated inside ctte_frontend; it reads the front end's records, state and next state and
// drives nothing, so it cannot change a stream. Each assertion is an immediate assert on the
// fabric clock; the images are verilated with --assert, so a violation is an $error at once.
module ctte_frontend_checks
  import ctte_pkg::*;
#(
  parameter int unsigned Mutant = MutantNone  // MutantStaleHist keeps HIST over a recovery
) (
  input  logic                clk,
  input  logic                rst_n,
  input  logic                cfg_active,
  input  logic                open_eff,   // the window is open this cycle
  input  logic                closing,    // a close formed this cycle or waiting for room
  input  logic                lost_q,     // in a loss episode
  input  logic [1:0]          n,          // records queued this cycle
  input  logic [5:0]          rec0_tcode,  // of the first record
  input  logic [9:0]          rec1_fixed,  // of the second: TCODE in 5:0, SYNC in 9:6
  input  logic [63:0]         rec1_v0,     // its first variable field (I-CNT of a sync)
  input  logic [IcntBits-1:0] icnt_q,
  input  logic [HistBits-1:0] hist_q,
  input  logic                pend_q,
  input  logic [5:0]          ras_n_q,
  input  logic [5:0]          ras_n_d,
  input  logic                predv_q,
  input  logic                predv_d,
  input  logic [4:0]          sj_rd_q,
  input  logic [4:0]          sj_rd_d
);

  // No ordinary message while paused: outside an open window only Error and the closing
  // ProgTraceCorrelation may be queued.
  always_ff @(posedge clk) begin
    if (rst_n && cfg_active && n != 2'd0 && !open_eff) begin
      assert (rec0_tcode == TcError || rec0_tcode == TcProgTraceCorrelation)
        else $error("ordinary message queued while the window is closed (tcode %0d)",
                    rec0_tcode);
      assert (n < 2'd2 || rec1_fixed[5:0] == TcProgTraceCorrelation)
        else $error("ordinary message queued while the window is closed (tcode %0d)",
                    rec1_fixed[5:0]);
    end
  end

  // A recovery sync (SYNC=7) carries I-CNT 0 and directly follows an Error.
  always_ff @(posedge clk) begin
    if (rst_n && n >= 2'd2 && rec1_fixed[5:0] == TcProgTraceSync &&
        rec1_fixed[9:6] == SyncFifoOverrun) begin
      assert (rec1_v0 == 64'd0) else $error("recovery sync with I-CNT %0d", rec1_v0);
      assert (rec0_tcode == TcError) else $error("recovery sync not preceded by Error");
    end
  end

  // No implicit-return state survives the trace-off correlation: when the closing records are
  // queued, the stack and the prediction are empty from the next cycle.
  always_ff @(posedge clk) begin
    if (rst_n && cfg_active && closing && n != 2'd0) begin
      assert (ras_n_d == 6'd0 && !predv_d)
        else $error("return stack not empty (%0d entries) at the trace-off correlation", ras_n_d);
    end
  end

  // A loss episode holds clean state in every cycle, from the cycle after the drop to the
  // recovery sync (SYNC=7) included: nothing of the compression state (I-CNT, owed message,
  // return stack, prediction, HIST, sequential-jump setter) survives the dropped beat. HIST is
  // left out for MutantStaleHist only, whose purpose is to show that the judges catch a
  // surviving HIST. (The periodic-sync count is not compression state: MutantRecoverySync keeps
  // it, and only the judges' byte-for-byte segment rule sees that.)
  always_ff @(posedge clk) begin
    if (rst_n && lost_q) begin
      assert (icnt_q == '0 && !pend_q && ras_n_q == 6'd0 && !predv_q && sj_rd_q == 5'd0)
        else $error("compression state during a loss episode");
      assert (Mutant == MutantStaleHist || hist_q == HistEmpty)
        else $error("HIST during a loss episode");
    end
  end

  // Sequential jump (section 11.7): no setter survives the trace-off correlation or a loss.
  always_ff @(posedge clk) begin
    if (rst_n && cfg_active && closing && n != 2'd0) begin
      assert (sj_rd_d == 5'd0) else $error("sequential-jump state at the trace-off correlation");
    end
    if (rst_n && lost_q && n >= 2'd2 && rec1_fixed[5:0] == TcProgTraceSync) begin
      assert (sj_rd_q == 5'd0) else $error("sequential-jump state survives the recovery sync");
    end
  end

endmodule
