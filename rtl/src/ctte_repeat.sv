// Repeat stage of the CTTE encoder (docs/encoder-behaviour.md sections 11.3-11.5): between the
// record queue and the packer. Repeated history: a run of identical ResourceFull(RCODE=1, H)
// records is held and sent as one ResourceFull(RCODE=2, H, HREPEAT=total), or as the RCODE 1
// record itself when the run is one long. RepeatBranch: a DirectBranch/IndirectBranch identical
// to the branch record sent just before it (an IndirectBranch with U-ADDR 0) is not sent but
// counted, and RepeatBranch(B-CNT=extra repetitions) goes out before the next other record.
//
// How: the queue head is looked at every cycle. A record that joins a run is dequeued at once
// (absorbed, nothing for the packer); a record that ends a run stays in the queue while the
// flush record (RCODE 2/1 or RepeatBranch) is offered to the packer, and is handled the cycle
// after. oracle/repeat_model.cc is the same machine in C++. With both enables 0 (or absent:
// parameters 0) the stage is a wire: head, empty and deq pass through unchanged.
module ctte_repeat
  import ctte_pkg::*;
#(
  parameter int unsigned RepeatHist = 0,     // repeated history compiled (1) or absent (0)
  parameter int unsigned RepeatBranch = 0,   // RepeatBranch compiled (1) or absent (0)
  // Test only (the assert-probe image; 0 in every deployable image): a sync record passes
  // while a run is held, so that tests/rtl/image_test.cc can show the assertion below fire.
  parameter int unsigned TestSpanSync = 0
) (
  input  logic clk,
  input  logic rst_n,
  input  logic cfg_repeat_hist,     // trTeInstEnRepeatedHistory (0 if absent)
  input  logic cfg_repeat_branch,   // trTeInstEnRepeatBranch (0 if absent)
  // from the record queue
  input  rec_t q_head,
  input  logic q_empty,
  output logic q_deq,
  // to the packer
  output rec_t head,
  output logic empty,
  input  logic deq
);

  localparam int unsigned CntBits = 18;
  localparam logic [CntBits-1:0] CntMax = {CntBits{1'b1}};
  localparam logic [5:0] TcRepeatBranch = 6'd30;
  localparam logic [3:0] RcodeHistRepeat = 4'd2;

  logic rh_on, rb_on;
  assign rh_on = (RepeatHist != 0) && cfg_repeat_hist;
  assign rb_on = (RepeatBranch != 0) && cfg_repeat_branch;

  logic [63:0]        hhist_q, hhist_d;   // RDATA of the held RCODE 1 run
  logic [CntBits-1:0] hrep_q, hrep_d;     // records in the held run (0 = none)
  logic               prevv_q, prevv_d;   // the last record sent was a branch record
  rec_t               prev_q, prev_d;
  logic [CntBits-1:0] bcnt_q, bcnt_d;     // withheld repetitions of prev

  // Record kinds, from the record's fixed fields (TCODE in 5:0, RCODE in 9:6).
  function automatic logic is_hist_full(logic [9:0] f);
    return f[5:0] == TcResourceFull && f[9:6] == RcodeHistFull;
  endfunction
  function automatic logic is_branch(logic [5:0] tc);
    return tc == TcDirectBranch || tc == TcIndirectBranch;
  endfunction
  function automatic logic is_sync(logic [5:0] tc);
    return tc == TcProgTraceSync || tc == TcIndirectBranchSync || tc == TcIndirectBranchHistSync;
  endfunction

  rec_t flush_rec;
  logic flush_hist, flush_branch, pass, absorb;

  always_comb begin
    logic x_hist, x_branch, same_hist, same_branch;
    x_hist = !q_empty && rh_on && is_hist_full(q_head.fixed[9:0]);
    x_branch = !q_empty && rb_on && is_branch(q_head.fixed[5:0]);
    same_hist = hrep_q != '0 && q_head.v0 == hhist_q && hrep_q != CntMax;
    same_branch = prevv_q && q_head == prev_q &&
                  (q_head.fixed[5:0] == TcDirectBranch || q_head.v1 == 64'd0);
    hhist_d = hhist_q;
    hrep_d = hrep_q;
    prevv_d = prevv_q;
    prev_d = prev_q;
    bcnt_d = bcnt_q;
    flush_hist = 1'b0;
    flush_branch = 1'b0;
    pass = 1'b0;
    absorb = 1'b0;
    if (!q_empty) begin
      if (TestSpanSync != 0 && is_sync(q_head.fixed[5:0])) begin
        pass = 1'b1;
      end else if (x_hist) begin
        if (bcnt_q != '0) begin
          flush_branch = 1'b1;
        end else if (hrep_q == '0 || same_hist) begin
          absorb = 1'b1;                  // starts or joins the held run
          hhist_d = q_head.v0;
          hrep_d = hrep_q + CntBits'(1);
          prevv_d = 1'b0;
        end else begin
          flush_hist = 1'b1;              // a different HIST, or a full HREPEAT
        end
      end else if (hrep_q != '0) begin
        flush_hist = 1'b1;
      end else if (x_branch && same_branch) begin
        if (bcnt_q == CntMax) begin
          flush_branch = 1'b1;            // a full B-CNT goes out; counting goes on from 1
        end else begin
          absorb = 1'b1;
          bcnt_d = bcnt_q + CntBits'(1);
        end
      end else if (bcnt_q != '0) begin
        flush_branch = 1'b1;
      end else begin
        pass = 1'b1;
      end
    end
    if (pass) begin                     // applies only when the packer takes it (below)
      prevv_d = x_branch;
      prev_d = q_head;
    end
    if (hrep_q == CntBits'(1)) begin
      flush_rec = mk_resource_full(RcodeHistFull, hhist_q);
    end else begin
      flush_rec = mk_rec({2'd0, RcodeHistRepeat, TcResourceFull}, 4'd10, 2'd2, hhist_q,
                         {{(64 - CntBits){1'b0}}, hrep_q}, 64'd0);
    end
    if (flush_branch) begin
      flush_rec = mk_rec({6'd0, TcRepeatBranch}, 4'd6, 2'd1, {{(64 - CntBits){1'b0}}, bcnt_q},
                         64'd0, 64'd0);
    end
  end

  assign head = (flush_hist || flush_branch) ? flush_rec : q_head;
  assign empty = !(flush_hist || flush_branch || pass);
  assign q_deq = absorb || (pass && deq);

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      hrep_q <= '0;
      prevv_q <= 1'b0;
      bcnt_q <= '0;
    end else begin
      // A flush or a passed record takes effect when the packer takes it; an absorbed record
      // always does (it needs no packer).
      hrep_q <= (flush_hist && !deq) ? hrep_q : hrep_d;
      bcnt_q <= (flush_branch && !deq) ? bcnt_q : bcnt_d;
      if (flush_hist && deq) hrep_q <= '0;
      if (flush_branch && deq) bcnt_q <= '0;
      if (!pass || deq) prevv_q <= prevv_d;
    end
  end
  always_ff @(posedge clk) begin
    hhist_q <= hhist_d;
    if (!pass || deq) prev_q <= prev_d;
  end

  // ---- standing assertion ----
  // A repeat counter never spans a sync: when a sync record (SYNC 2, 5 or 7) goes to the
  // packer, nothing is held or counted and there is no previous branch record (so a recovery
  // sync leaves no repeat state either).
  always_ff @(posedge clk) begin
    if (rst_n && pass && deq && is_sync(q_head.fixed[5:0])) begin
      assert (hrep_q == '0 && bcnt_q == '0)
        else $error("repeat state spans a sync (HREPEAT %0d, B-CNT %0d)", hrep_q, bcnt_q);
    end
  end

endmodule
