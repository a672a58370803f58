// Register file of the CTTE encoder (docs/encoder-behaviour.md section 9): trTeControl and the
// other TCI registers at their standard offsets, and the vendor identity, counter and status
// registers from 0x100. Writes are synchronous to the fabric clock; reads are combinational.
// Counters are 32-bit, wrap, and clear while trTeActive is 0. Offsets, field layouts, reset
// and constant values come from ctte_regmap_pkg, generated from regmap/regmap.json.
module ctte_regs
  import ctte_regmap_pkg::*;
#(
  parameter logic [63:0] BuildId = 64'd0,
  parameter logic [7:0]  ProfileId = 8'd1,
  parameter int unsigned LogQDepth = 4,
  parameter int unsigned LogFifoDepth = 4,
  parameter logic [7:0]  MutantId = 8'd0,
  parameter int unsigned RasDepth = 0,  // implicit-return stack depth; 0 = not compiled
  parameter logic [7:0]  Xlen = 8'd64,  // ctteProfile.Xlen: the encoder's address width
  parameter int unsigned RepeatHist = 0,    // repeated history compiled (section 11.3)
  parameter int unsigned RepeatBranch = 0,  // RepeatBranch compiled (section 11.4)
  parameter bit          SeqJump = 1'b0,   // sequential jump compiled (section 11.7)
  parameter bit          FullAddr = 1'b0,  // full addresses compiled (section 11.8)
  parameter bit          ConfigMsg = 1'b0  // configuration message compiled (section 11.9)
) (
  input  logic        clk,
  input  logic        rst_n,
  input  logic        we,
  input  logic [31:0] addr,
  input  logic [31:0] wdata,
  output logic [31:0] rdata,
  // configuration
  output logic        cfg_active,
  output logic        cfg_enable,
  output logic        cfg_tracing,
  output logic [2:0]  cfg_mode,
  output logic [1:0]  cfg_sync_mode,
  output logic [3:0]  cfg_sync_max,
  output logic        cfg_implicit_return,
  output logic        cfg_repeat_hist,
  output logic        cfg_repeat_branch,
  output logic        cfg_seq_jump,      // trTeInstEnSequentialJump (0 if absent)
  output logic        cfg_full_addr,     // trTeInstNoAddrDiff (0 if absent)
  output logic        cfg_config_msg,    // EnConfigMessage (0 if absent)
  // status and events
  input  logic        st_empty,
  input  logic        st_lost,
  input  logic        st_window_open,
  input  logic        st_close_waiting,
  input  logic        ev_msg,
  input  logic        ev_byte,
  input  logic        ev_episode,
  input  logic [1:0]  ev_dropped,
  input  logic [7:0]  ev_halfwords,
  output logic        st_stall_ovf
);

  logic        active_q, enable_q, tracing_q, stall_ovf_q;
  logic [2:0]  mode_q;
  logic [1:0]  sync_mode_q;
  logic [3:0]  sync_max_q;
  logic        ir_en_q;   // trTeInstEnImplicitReturn (WARL: 0 unless compiled)
  logic        rh_en_q;   // trTeInstEnRepeatedHistory (WARL: 0 unless compiled)
  logic        rb_en_q;   // trTeInstEnRepeatBranch (vendor bit 15; WARL: 0 unless compiled)
  logic        sj_en_q, fa_en_q, cm_en_q;  // sections 11.7-11.9 (WARL: 0 unless compiled)
  logic [31:0] msgs_q, bytes_q, episodes_q, dropped_q, halfwords_q;

  // A write to trTeControl, seen through its field layout. Its read-only and reserved bits are
  // ignored.
  tr_te_control_t ctl_w;
  assign ctl_w = wdata;
  logic unused_wdata;
  assign unused_wdata = ^(ctl_w & ~TrTeControlWritable);

  logic ctl_we;
  assign ctl_we = we && addr == TrTeControlAddr;

  // A write to trTeInstFeatures: only the enables of compiled features are held.
  tr_te_inst_features_t feat_w;
  assign feat_w = wdata;
  logic feat_we;
  assign feat_we = we && addr == TrTeInstFeaturesAddr;
  logic unused_feat_w;
  assign unused_feat_w = ^(feat_w & ~TrTeInstFeaturesWritable);

  // WARL: trTeInstMode holds 0, 3 or 6 (any other non-zero value reads 6); trTeInstSyncMode
  // holds 0, 1 or 3 (2, hart cycles, reads 0).
  function automatic logic [2:0] legal_mode(logic [2:0] m);
    if (m == InstModeOff || m == InstModeBtm) return m;
    return InstModeHtm;
  endfunction

  function automatic logic [1:0] legal_sync_mode(logic [1:0] m);
    if (m == SyncModeMessages || m == SyncModeHalfwords) return m;
    return SyncModeOff;
  endfunction

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      active_q <= TrTeControlReset.active;
      enable_q <= TrTeControlReset.enable;
      tracing_q <= TrTeControlReset.inst_tracing;
      stall_ovf_q <= TrTeControlReset.inst_stall_or_overflow;
      mode_q <= TrTeControlReset.inst_mode;
      sync_mode_q <= TrTeControlReset.inst_sync_mode;
      sync_max_q <= TrTeControlReset.inst_sync_max;
      ir_en_q <= TrTeInstFeaturesReset.en_implicit_return;
      rh_en_q <= TrTeInstFeaturesReset.en_repeated_history;
      rb_en_q <= TrTeInstFeaturesReset.en_repeat_branch;
      sj_en_q <= TrTeInstFeaturesReset.en_sequential_jump;
      fa_en_q <= TrTeInstFeaturesReset.no_addr_diff;
      cm_en_q <= TrTeInstFeaturesReset.en_config_message;
    end else begin
      if (feat_we) ir_en_q <= (RasDepth != 0) && feat_w.en_implicit_return;
      if (feat_we) rh_en_q <= (RepeatHist != 0) && feat_w.en_repeated_history;
      if (feat_we) rb_en_q <= (RepeatBranch != 0) && feat_w.en_repeat_branch;
      if (feat_we) sj_en_q <= SeqJump && feat_w.en_sequential_jump;
      if (feat_we) fa_en_q <= FullAddr && feat_w.no_addr_diff;
      if (feat_we) cm_en_q <= ConfigMsg && feat_w.en_config_message;
      if (ctl_we) begin
        active_q <= ctl_w.active;
        enable_q <= ctl_w.enable;
        tracing_q <= ctl_w.inst_tracing;
        mode_q <= legal_mode(ctl_w.inst_mode);
        sync_mode_q <= legal_sync_mode(ctl_w.inst_sync_mode);
        sync_max_q <= ctl_w.inst_sync_max;
      end
      // trTeInstStallOrOverflow: set by a loss episode, RW1C, cleared when Enable is set.
      if (ev_episode) stall_ovf_q <= 1'b1;
      else if (ctl_we && (ctl_w.inst_stall_or_overflow || (ctl_w.enable && !enable_q))) begin
        stall_ovf_q <= 1'b0;
      end
    end
  end

  always_ff @(posedge clk) begin
    if (!rst_n || !active_q) begin
      msgs_q <= '0;
      bytes_q <= '0;
      episodes_q <= '0;
      dropped_q <= '0;
      halfwords_q <= '0;
    end else begin
      msgs_q <= msgs_q + {31'd0, ev_msg};
      bytes_q <= bytes_q + {31'd0, ev_byte};
      episodes_q <= episodes_q + {31'd0, ev_episode};
      dropped_q <= dropped_q + {30'd0, ev_dropped};
      halfwords_q <= halfwords_q + {24'd0, ev_halfwords};
    end
  end

  assign st_stall_ovf = stall_ovf_q;
  assign cfg_active = active_q;
  assign cfg_enable = enable_q;
  assign cfg_tracing = tracing_q;
  assign cfg_mode = mode_q;
  assign cfg_sync_mode = sync_mode_q;
  assign cfg_sync_max = sync_max_q;
  assign cfg_implicit_return = ir_en_q;
  assign cfg_repeat_hist = rh_en_q;
  assign cfg_repeat_branch = rb_en_q;
  assign cfg_seq_jump = sj_en_q;
  assign cfg_full_addr = fa_en_q;
  assign cfg_config_msg = cm_en_q;

  // Read values of the registers with fields.
  tr_te_control_t ctl_r;
  ctte_profile_t profile_r;
  ctte_status_t status_r;
  tr_te_inst_features_t feat_r;
  ctte_feature_caps_t fcaps_r;
  always_comb begin
    feat_r = '0;
    feat_r.en_implicit_return = ir_en_q;
    feat_r.implicit_return_mode = (RasDepth != 0) ? 2'd3 : 2'd0;  // full-address stack
    feat_r.en_repeated_history = rh_en_q;
    feat_r.en_repeat_branch = rb_en_q;
    fcaps_r = '0;
    fcaps_r.implicit_return = RasDepth != 0;
    fcaps_r.return_stack_depth = 6'(RasDepth);
    fcaps_r.repeated_history = RepeatHist != 0;
    fcaps_r.repeat_branch = RepeatBranch != 0;
    feat_r.en_sequential_jump = sj_en_q;
    feat_r.no_addr_diff = fa_en_q;
    feat_r.en_config_message = cm_en_q;
    fcaps_r.sequential_jump = SeqJump;
    fcaps_r.full_address = FullAddr;
    fcaps_r.config_message = ConfigMsg;

    ctl_r = TrTeControlConst;
    ctl_r.active = active_q;
    ctl_r.enable = enable_q;
    ctl_r.inst_tracing = tracing_q;
    ctl_r.empty = st_empty;
    ctl_r.inst_mode = mode_q;
    ctl_r.inst_stall_or_overflow = stall_ovf_q;
    ctl_r.inst_sync_mode = sync_mode_q;
    ctl_r.inst_sync_max = sync_max_q;

    profile_r = '0;
    profile_r.id = ProfileId;
    profile_r.xlen = Xlen;
    profile_r.log_qdepth = 8'(LogQDepth);
    profile_r.log_fifo_depth = 8'(LogFifoDepth);

    status_r = '0;
    status_r.empty = st_empty;
    status_r.lost = st_lost;
    status_r.window_open = st_window_open;
    status_r.close_waiting = st_close_waiting;
  end

  always_comb begin
    case (addr)
      TrTeControlAddr: rdata = ctl_r;
      TrTeImplAddr: rdata = TrTeImplConst;
      TrTeInstFeaturesAddr: rdata = feat_r;
      TrTeInstFiltersAddr: rdata = 32'd0;
      TrTeDataControlAddr: rdata = 32'd0;
      CtteBuildIdLoAddr: rdata = BuildId[31:0];
      CtteBuildIdHiAddr: rdata = BuildId[63:32];
      CtteProfileAddr: rdata = profile_r;
      CtteCapsAddr: rdata = CtteCapsConst;
      CtteMsgCountAddr: rdata = msgs_q;
      CtteByteCountAddr: rdata = bytes_q;
      CtteOverflowEpisodesAddr: rdata = episodes_q;
      CtteRecordsDroppedAddr: rdata = dropped_q;
      CtteHalfwordsRetiredAddr: rdata = halfwords_q;
      CtteStatusAddr: rdata = status_r;
      CtteMutantAddr: rdata = {24'd0, MutantId};
      CtteFeatureCapsAddr: rdata = fcaps_r;
      default: rdata = 32'd0;
    endcase
  end

endmodule
