// Front end of the CTTE encoder (docs/encoder-behaviour.md sections 3-6). It is not
// protocol-neutral: it forms the N-Trace message records itself (constructors in ctte_pkg), so
// there is no separate message generator; the packer only serialises them.
//
// What: per ingress beat it forms the list R of message records (at most three) in the order
// the contract gives: window-open sync (SYNC=5), the owed indirect message or the periodic sync
// (SYNC=2), ResourceFull for I-CNT / HIST overflow, DirectBranch (BTM). It enqueues R all or
// none; when R does not fit it starts a loss episode, and when the queue has three free entries
// again it announces the loss with Error + ProgTraceSync(SYNC=7, I-CNT=0) before the beat.
// Closing the window (trTeInstTracing, trTeEnable or trTeInstMode to 0) forms the closing
// ProgTraceCorrelation (preceded by Error during a loss) and waits for queue room.
//
// How: one always_comb block computes the next state and the records from the current state,
// the configuration and the beat (pieces of its steps are functions in ctte_beat_pkg and
// ctte_return_stack_pkg); everything is registered on the fabric clock. The standing
// assertions are ctte_frontend_checks. trTeActive=0 holds the front end in reset. The window
// is open in a cycle when its condition holds and no close is waiting; a beat is traced only in
// such a cycle.
module ctte_frontend
  import ctte_pkg::*;
  import ctte_regmap_pkg::*;
  import ctte_feature_pkg::*;
  import ctte_beat_pkg::*;
  import ctte_return_stack_pkg::*;
#(
  parameter int unsigned QFreeBits = 5,
  parameter int unsigned RasDepth = 0,         // implicit-return stack depth (0 = not compiled)
  parameter int unsigned Xlen = 64,            // 32 or 64: in_iaddr is zero-extended from Xlen
  parameter int unsigned Mutant = MutantNone,  // docs/mutants.md; 0 in every deployable image
  parameter bit          SeqJump = 1'b0,       // sections 11.7-11.9: compiled or not
  parameter bit          FullAddr = 1'b0,
  parameter bit          ConfigMsg = 1'b0,
  parameter bit          RepeatHist = 1'b0,    // compiled in ctte_repeat (sections 11.3, 11.4);
  parameter bit          RepeatBranch = 1'b0   // here only for the configuration message
) (
  input  logic                 clk,
  input  logic                 rst_n,
  // configuration (trTeControl)
  input  logic                 cfg_active,
  input  logic                 cfg_enable,
  input  logic                 cfg_tracing,
  input  logic [2:0]           cfg_mode,
  input  logic [1:0]           cfg_sync_mode,
  input  logic [3:0]           cfg_sync_max,
  input  logic                 cfg_implicit_return,  // trTeInstEnImplicitReturn (0 if absent)
  input  logic                 cfg_repeat_hist,      // trTeInstEnRepeatedHistory (0 if absent)
  input  logic                 cfg_repeat_branch,    // trTeInstEnRepeatBranch (0 if absent)
  input  logic                 cfg_seq_jump,         // trTeInstEnSequentialJump (0 if absent)
  input  logic                 cfg_full_addr,        // trTeInstNoAddrDiff (0 if absent)
  input  logic                 cfg_config_msg,       // EnConfigMessage (0 if absent)
  // ingress beat
  input  logic                 in_valid,
  input  logic [3:0]           in_itype,
  input  logic [63:0]          in_iaddr,
  input  logic [7:0]           in_iretire,
  input  logic [31:0]          in_insn,
  // message queue
  input  logic [QFreeBits-1:0] q_free,
  output logic [1:0]           enq_n,
  output rec_t                 enq_rec0,
  output rec_t                 enq_rec1,
  output rec_t                 enq_rec2,
  // events and status
  output logic                 ev_episode,
  output logic [1:0]           ev_dropped,
  output logic [7:0]           ev_halfwords,
  output logic                 st_lost,
  output logic                 st_window_open,
  output logic                 st_close_waiting
);

  // Addresses are Xlen bits: the link (return-stack entry) wraps as the core's PC does.
  localparam logic [63:0] AddrMask = Xlen >= 64 ? {64{1'b1}} : ((64'd1 << Xlen) - 64'd1);

  // ---- state ----
  logic [IcntBits-1:0] icnt_q, icnt_d;
  logic [HistBits-1:0] hist_q, hist_d;
  logic [63:0]         ref_q, ref_d;
  logic                pend_q, pend_d;
  logic [1:0]          pbtype_q, pbtype_d;
  logic [31:0]         syncctr_q, syncctr_d;
  logic                open_q, open_d;        // window was open last cycle
  logic                first_q, first_d;      // next traced beat is the first of the window
  logic                lost_q, lost_d;
  logic                close_pend_q, close_pend_d;
  logic                htm_q, htm_d;          // mode latched when the window opened
  // Implicit return (docs/encoder-behaviour.md section 11.1): the stack, oldest entry at 0.
  logic [63:0]         ras_q [RasSlots];
  logic [63:0]         ras_d [RasSlots];
  logic [5:0]          ras_n_q, ras_n_d;
  logic                predv_q, predv_d;      // pend was armed by a pop: its predicted target
  logic [63:0]         pred_q, pred_d;
  logic                ir_on;
  assign ir_on = (RasDepth != 0) && cfg_implicit_return;
  // Sequential jump (section 11.7): rd of the previous traced beat when it was a setter, else 0.
  logic [4:0]          sj_rd_q, sj_rd_d;
  logic                sj_on, fa_on, cm_on;
  assign sj_on = SeqJump && cfg_seq_jump;
  assign fa_on = FullAddr && cfg_full_addr;
  assign cm_on = ConfigMsg && cfg_config_msg;

  logic win_cond, win_eff;
  assign win_cond = cfg_active & cfg_enable & cfg_tracing & (cfg_mode != InstModeOff);

  // ---- mutant state (docs/mutants.md); constant 0 unless that mutant is compiled ----
  logic        held_q, held_d;      // MutantLateClose: the one late beat was traced
  logic        leaked_q, leaked_d;  // MutantWindowLeak: the one paused SYNC=5 was queued
  logic [31:0] junk_q;              // MutantNondeterminism/FlakyStart/FlakyBtm: never reset (X)
  logic        hold;
  // MutantLateClose: a pause (trTeInstTracing to 0, Enable still 1) takes effect only after one
  // more beat has been traced.
  assign hold = (Mutant == MutantLateClose) && open_q && !close_pend_q && !held_q &&
                cfg_active && cfg_enable && !cfg_tracing && (cfg_mode != InstModeOff);
  assign win_eff = win_cond | hold;
  if (Mutant == MutantNondeterminism || Mutant == MutantFlakyStart ||
      Mutant == MutantFlakyBtm) begin : g_junk
    always_ff @(posedge clk) junk_q <= junk_q;  // no reset: keeps its X-initialized value
  end else begin : g_no_junk
    assign junk_q = '0;
  end

  rec_t r [3];
  logic [1:0] n;
  logic closing, open_eff, beat;

  always_comb begin
    logic                due, synced, first, fits;
    logic [1:0]          nonsync;
    logic [IcntBits-1:0] icnt_w;
    logic [HistBits-1:0] hist_w;
    logic [63:0]         ref_w;
    logic                pend_w;
    logic [1:0]          pbtype_w;
    logic [31:0]         syncctr_w;
    logic [1:0]          nbeat;   // records this beat forms (excluding a recovery prefix)
    logic [1:0]          nrec;    // recovery prefix length (0 or 2)
    logic [5:0]          period_shift;
    logic [32:0]         period;
    logic                htm;     // the window's mode: latched at open, current in that cycle
    logic [63:0]         ras_w [RasSlots];
    logic [5:0]          ras_n_w;
    logic                predv_w;
    logic [63:0]         pred_w;
    logic [63:0]         link;
    logic                seq;     // this beat's jalr is sequentially inferable (section 11.7)
    logic [63:0]         uaddr;   // U-ADDR of an owed message (section 11.8)

    icnt_d = icnt_q;
    hist_d = hist_q;
    ref_d = ref_q;
    pend_d = pend_q;
    pbtype_d = pbtype_q;
    syncctr_d = syncctr_q;
    open_d = open_q;
    first_d = first_q;
    lost_d = lost_q;
    close_pend_d = close_pend_q;
    htm_d = htm_q;
    ras_d = ras_q;
    ras_n_d = ras_n_q;
    predv_d = predv_q;
    pred_d = pred_q;
    sj_rd_d = sj_rd_q;
    held_d = win_cond ? 1'b0 : held_q;
    leaked_d = win_cond ? 1'b0 : leaked_q;
    r[0] = '0;
    r[1] = '0;
    r[2] = '0;
    n = 2'd0;
    ev_episode = 1'b0;
    ev_dropped = 2'd0;
    ev_halfwords = 8'd0;

    closing = close_pend_q | (open_q & ~win_eff);
    open_eff = win_eff & ~closing;
    beat = open_eff & in_valid;

    // working copies for the beat algorithm
    icnt_w = icnt_q;
    hist_w = hist_q;
    ref_w = ref_q;
    pend_w = pend_q;
    pbtype_w = pbtype_q;
    syncctr_w = syncctr_q;
    ras_w = ras_q;
    ras_n_w = ras_n_q;
    predv_w = predv_q;
    pred_w = pred_q;
    link = (in_iaddr + {55'd0, in_iretire, 1'b0}) & AddrMask;
    seq = 1'b0;
    uaddr = '0;
    nbeat = 2'd0;
    nrec = 2'd0;
    synced = 1'b0;
    nonsync = 2'd0;
    due = 1'b0;
    first = 1'b0;
    fits = 1'b0;
    period_shift = {2'b0, cfg_sync_max} + 6'd4;
    period = 33'd1 << period_shift;
    htm = open_q ? htm_q : (cfg_mode == InstModeHtm);

    if (closing) begin
      // Section 5: the close's records wait for room; no beat is traced meanwhile.
      if (Mutant == MutantFlushClobber && !cfg_enable && !lost_q) begin
        mk_close_records(1'b0, htm_q, '0, HistEmpty, r, n);  // a stop loses the pending I-CNT/HIST
      end else begin
        mk_close_records(lost_q, htm_q, icnt_q, hist_q, r, n);
      end
      if ({{(QFreeBits - 2){1'b0}}, n} <= q_free) begin
        close_pend_d = 1'b0;
        lost_d = 1'b0;
        icnt_d = '0;
        hist_d = HistEmpty;
        pend_d = 1'b0;
        pbtype_d = 2'd0;
        syncctr_d = '0;
        ras_n_d = '0;
        predv_d = 1'b0;
        sj_rd_d = '0;
      end else begin
        n = 2'd0;
        close_pend_d = 1'b1;
      end
      open_d = 1'b0;
      first_d = 1'b0;
    end else if (open_eff) begin
      first = first_q | ~open_q;
      open_d = 1'b1;
      if (!open_q) htm_d = (cfg_mode == InstModeHtm);
      first_d = first;
      if (beat) begin
        ev_halfwords = in_iretire;
        first_d = 1'b0;
        if (hold) held_d = 1'b1;
        if (lost_q) begin
          // Section 6: lost; announce when three entries are free, else the beat forms nothing.
          if (q_free >= QFreeBits'(3)) begin
            r[0] = mk_error();
            if (Mutant == MutantMissingReanchor && !htm) begin
              nrec = 2'd1;  // BTM: the Error is not followed by the SYNC=7 re-anchor
            end else begin
              r[1] = mk_prog_trace_sync(SyncFifoOverrun, '0, {1'b0, in_iaddr[63:1]});
              nrec = 2'd2;
              ref_w = in_iaddr;
              synced = 1'b1;
            end
            ras_n_w = '0;
            predv_w = 1'b0;
            lost_d = 1'b0;
          end
        end
        if (!lost_q || nrec != 2'd0) begin
          // Step 1 and 2.
          if (first) begin
            // MutantFlakyStart: on a power-up whose X state has junk bit 0 set, the window-open
            // SYNC=5 names the instruction one half-word off; MutantFlakyBtm: the same in BTM only.
            r[nrec] = mk_prog_trace_sync(SyncTraceEnable, '0, {1'b0, in_iaddr[63:1]} ^
                                         (((Mutant == MutantFlakyStart ||
                                            (Mutant == MutantFlakyBtm && !htm)) && junk_q[0]) ?
                                          64'd1 : 64'd0));
            nbeat = 2'd1;
            if (cm_on) begin  // section 11.9: the configuration message precedes the SYNC=5
              r[nrec + 2'd1] = r[nrec];
              r[nrec] = mk_config({FullAddr, SeqJump, RepeatBranch, RepeatHist, ConfigMsg, 2'd0,
                                   RasDepth != 0},
                                  {fa_on, sj_on, RepeatBranch && cfg_repeat_branch,
                                   RepeatHist && cfg_repeat_hist, cm_on, 2'd0, ir_on},
                                  ir_on ? 6'(RasDepth) : 6'd0);
              nbeat = 2'd2;
            end
            icnt_w = '0;
            hist_w = HistEmpty;
            pend_w = 1'b0;
            ref_w = in_iaddr;
            synced = 1'b1;
            ras_n_w = '0;
            predv_w = 1'b0;
          end else begin
            due = (cfg_sync_mode != SyncModeOff) && ({1'b0, syncctr_w} >= period);
            if (due) begin
              // MutantSyncIcnt: BTM with half-word periodic sync: the sync's I-CNT is one more.
              r[nrec] = mk_periodic_sync(htm, pend_w ? pbtype_w : BtypeJump,
                  icnt_w + ((Mutant == MutantSyncIcnt && !htm &&
                             cfg_sync_mode == SyncModeHalfwords) ? IcntBits'(1) : IcntBits'(0)),
                  {1'b0, in_iaddr[63:1]}, hist_w);
              nbeat = 2'd1;
              icnt_w = '0;
              hist_w = HistEmpty;
              pend_w = 1'b0;
              ref_w = in_iaddr;
              synced = 1'b1;
              ras_n_w = '0;
              predv_w = 1'b0;
            end else if (pend_w && predv_w && in_iaddr == pred_w) begin
              pend_w = 1'b0;  // an implicit return: the decoder pops the same address
              predv_w = 1'b0;
              // MutantImplicitIcnt: the omitted return restarts I-CNT as if a message had gone.
              if (Mutant == MutantImplicitIcnt) icnt_w = '0;
            end else if (pend_w) begin
              uaddr = fa_on ? {1'b0, in_iaddr[63:1]} : {1'b0, ref_w[63:1] ^ in_iaddr[63:1]};
              // MutantTrapIcnt: BTM: an interrupt's message has I-CNT one more.
              r[nrec] = mk_owed_indirect(htm, pbtype_w,
                  icnt_w + ((Mutant == MutantTrapIcnt && !htm && pbtype_w == BtypeInterrupt) ?
                            IcntBits'(1) : IcntBits'(0)), uaddr, hist_w);
              nbeat = 2'd1;
              nonsync = 2'd1;
              icnt_w = '0;
              hist_w = HistEmpty;
              pend_w = 1'b0;
              predv_w = 1'b0;
              ref_w = in_iaddr;
            end
          end
          // MutantRecoverySync: the recovery SYNC=7 does not restart the periodic-sync count.
          if (synced && !(Mutant == MutantRecoverySync && lost_q)) syncctr_w = '0;
          if (Mutant == MutantNondeterminism && first && !htm) begin
            syncctr_w = junk_q & (period[31:0] - 32'd1);  // BTM: the first periodic sync's phase
          end
          // Step 3: the beat itself. A sync or an Error formed by this beat forgot the setter.
          seq = sj_on && !synced && nrec == 2'd0 && sj_rd_q != 5'd0 &&
                sj_jalr_rs1(in_insn) == sj_rd_q;
          if (in_itype == ItypeException || in_itype == ItypeInterrupt) begin
            pend_w = 1'b1;
            pbtype_w = (in_itype == ItypeException) ? BtypeException : BtypeInterrupt;
            predv_w = 1'b0;
          end else begin
            count_beat(in_itype, in_iretire, htm, nrec, r, nbeat, nonsync, icnt_w, hist_w);
            if (is_uninferable_retiring(in_itype) && !seq) begin
              pend_w = 1'b1;
              pbtype_w = BtypeJump;
              predv_w = 1'b0;
            end
            // Implicit return (section 11.1): pop, then push (ctte_return_stack_pkg).
            if (ir_on) ras_pop_push(in_itype, 6'(RasDepth), link, ras_w, ras_n_w, predv_w, pred_w);
          end
          if (seq) predv_w = 1'b0;  // no pend for the popped prediction to confirm
          // Step 4: periodic sync counter.
          if (cfg_sync_mode == SyncModeMessages) begin
            syncctr_w = syncctr_w + {30'd0, nonsync};
          end else if (cfg_sync_mode == SyncModeHalfwords) begin
            syncctr_w = syncctr_w + {24'd0, in_iretire};
          end

          // Enqueue all or none. A recovery prefix always fits (three free entries).
          fits = {{(QFreeBits - 2){1'b0}}, nrec} + {{(QFreeBits - 2){1'b0}}, nbeat} <= q_free;
          if (lost_q || fits) begin
            n = nrec + nbeat;
            icnt_d = icnt_w;
            hist_d = hist_w;
            ref_d = ref_w;
            pend_d = pend_w;
            pbtype_d = pbtype_w;
            syncctr_d = syncctr_w;
            ras_d = ras_w;
            ras_n_d = ras_n_w;
            predv_d = predv_w;
            pred_d = pred_w;
            sj_rd_d = (sj_on && in_itype != ItypeException && in_itype != ItypeInterrupt) ?
                      sj_setter_rd(in_insn) : 5'd0;
          end else begin
            n = 2'd0;
            ev_episode = 1'b1;
            // MutantDroppedSkew: ctteRecordsDropped counts one record more per episode.
            ev_dropped = nbeat + ((Mutant == MutantDroppedSkew) ? 2'd1 : 2'd0);
            lost_d = (Mutant != MutantSilentDrop);  // MutantSilentDrop: never announced
            icnt_d = '0;
            hist_d = (Mutant == MutantStaleHist) ? hist_q : HistEmpty;  // survives the anchor
            pend_d = 1'b0;
            pbtype_d = 2'd0;
            syncctr_d = (Mutant == MutantRecoverySync) ? syncctr_q : '0;  // kept over the loss
            ras_n_d = '0;
            predv_d = 1'b0;
            sj_rd_d = '0;
          end
        end
        // MutantCounterSkew: a beat seen while lost is not counted in ctteHalfwordsRetired.
        if (Mutant == MutantCounterSkew && lost_q && lost_d) ev_halfwords = 8'd0;
      end
    end else begin
      open_d = 1'b0;
      first_d = 1'b0;
      // MutantWindowLeak: the first beat while paused (Enable 1, InstTracing 0) forms a SYNC=5.
      if (Mutant == MutantWindowLeak && cfg_active && cfg_enable && !cfg_tracing &&
          cfg_mode != InstModeOff && !open_q && in_valid && !leaked_q &&
          q_free != '0) begin
        r[0] = mk_prog_trace_sync(SyncTraceEnable, '0, {1'b0, in_iaddr[63:1]});
        n = 2'd1;
        leaked_d = 1'b1;
      end
    end
  end

  assign enq_n = n;
  assign enq_rec0 = r[0];
  assign enq_rec1 = r[1];
  assign enq_rec2 = r[2];
  assign st_lost = lost_q;
  assign st_window_open = open_q;
  assign st_close_waiting = closing;  // a close formed this cycle or waiting for room

  always_ff @(posedge clk) begin
    if (!rst_n || !cfg_active) begin
      icnt_q <= '0;
      hist_q <= HistEmpty;
      ref_q <= '0;
      pend_q <= 1'b0;
      pbtype_q <= 2'd0;
      syncctr_q <= '0;
      open_q <= 1'b0;
      first_q <= 1'b0;
      lost_q <= 1'b0;
      close_pend_q <= 1'b0;
      htm_q <= 1'b1;
      ras_n_q <= '0;
      predv_q <= 1'b0;
      pred_q <= '0;
      sj_rd_q <= '0;
      held_q <= 1'b0;
      leaked_q <= 1'b0;
    end else begin
      icnt_q <= icnt_d;
      hist_q <= hist_d;
      ref_q <= ref_d;
      pend_q <= pend_d;
      pbtype_q <= pbtype_d;
      syncctr_q <= syncctr_d;
      open_q <= open_d;
      first_q <= first_d;
      lost_q <= lost_d;
      close_pend_q <= close_pend_d;
      htm_q <= htm_d;
      ras_n_q <= ras_n_d;
      predv_q <= predv_d;
      pred_q <= pred_d;
      sj_rd_q <= sj_rd_d;
      held_q <= held_d;
      leaked_q <= leaked_d;
    end
  end

  // The stack entries need no reset: ras_n_q says how many are valid.
  always_ff @(posedge clk) ras_q <= ras_d;

  // ---- standing assertions (ctte_frontend_checks) ----
  ctte_frontend_checks #(.Mutant(Mutant)) u_checks (
    .clk, .rst_n, .cfg_active, .open_eff, .closing, .lost_q, .n, .rec0_tcode(r[0].fixed[5:0]),
    .rec1_fixed(r[1].fixed[9:0]), .rec1_v0(r[1].v0),
    .icnt_q, .hist_q, .pend_q, .ras_n_q, .ras_n_d, .predv_q, .predv_d, .sj_rd_q, .sj_rd_d);

endmodule
