// Shared types of the CTTE N-Trace encoder: the message record that travels from the front end
// through the message queue to the packer, and the constructors for each N-Trace message
// (docs/encoder-behaviour.md section 7).
//
// A record is protocol-level, not byte-level: `fixed` holds the fixed-width fields bit-packed
// LSB first (TCODE in bits 5:0), `fixed_bits` their total width (6, 8, 10 or 12), and v[0..nvar-1]
// the variable-length fields in message order. The packer turns it into MDO/MSEO bytes.
package ctte_pkg;

  localparam int unsigned IcntBits = 22;   // kIcntBits
  localparam int unsigned HistBits = 32;   // HIST register including the stop bit
  localparam logic [HistBits-1:0] HistEmpty = {{(HistBits - 1){1'b0}}, 1'b1};  // stop bit only

  // Mutant ids (the MUTANT parameter, ctteMutant at 0x128; docs/mutants.md): each one breaks one
  // contract of docs/encoder-behaviour.md in one `if (Mutant == ...)` place. 0 = none.
  localparam int unsigned MutantNone            = 0;
  localparam int unsigned MutantSilentDrop      = 1;   // loss not announced (section 6)
  localparam int unsigned MutantMissingReanchor = 2;   // BTM: no SYNC=7 after the Error
  localparam int unsigned MutantStaleHist       = 3;   // HTM: HIST survives the recovery anchor
  localparam int unsigned MutantTrapIcnt        = 4;   // BTM: interrupt message I-CNT + 1
  localparam int unsigned MutantFlushClobber    = 5;   // stop: closing I-CNT/HIST lost
  localparam int unsigned MutantWindowLeak      = 6;   // a SYNC=5 while paused (assertion)
  localparam int unsigned MutantLateClose       = 7;   // pause: one more beat traced
  localparam int unsigned MutantCounterSkew     = 8;   // ctteHalfwordsRetired skips lost beats
  localparam int unsigned MutantOutputHang      = 9;   // packer stops after 128 messages
  localparam int unsigned MutantNondeterminism  = 10;  // BTM sync phase from an unreset register
  localparam int unsigned MutantSyncIcnt        = 11;  // BTM x halfword sync: sync I-CNT + 1
  localparam int unsigned MutantFlakyStart      = 12;  // SYNC=5 address off on half the power-ups
  localparam int unsigned MutantDroppedSkew     = 13;  // ctteRecordsDropped one more per episode
  localparam int unsigned MutantFlakyBtm        = 14;  // the same, in BTM only (a flaky culprit)
  localparam int unsigned MutantImplicitIcnt    = 15;  // implicit return: I-CNT restarts (a feature culprit)
  localparam int unsigned MutantRecoverySync    = 16;  // the periodic-sync count survives a loss

  // Ingress itype, 4-bit encoding (shared/spec/ntrace.md section 9; oracle::IType).
  typedef enum logic [3:0] {
    ItypeNone            = 4'd0,   // sequential
    ItypeException       = 4'd1,   // non-retiring trap beat
    ItypeInterrupt       = 4'd2,   // non-retiring trap beat
    ItypeTrapReturn      = 4'd3,
    ItypeNotTakenBranch  = 4'd4,
    ItypeTakenBranch     = 4'd5,
    ItypeUninferableJump = 4'd6,   // the 3-bit encoding's indirect jump
    ItypeIndirectCall    = 4'd8,
    ItypeDirectCall      = 4'd9,
    ItypeIndirectJump    = 4'd10,
    ItypeDirectJump      = 4'd11,
    ItypeCoroutineSwap   = 4'd12,
    ItypeReturn          = 4'd13,
    ItypeOtherIndirectLink = 4'd14,
    ItypeOtherDirectLink = 4'd15
  } itype_e;

  // SYNC field of the sync messages (spec/ntrace.md section 5) this encoder sends.
  typedef enum logic [3:0] {
    SyncPeriodic    = 4'd2,   // periodic sync (trTeInstSyncMode)
    SyncTraceEnable = 4'd5,   // first message of a window
    SyncFifoOverrun = 4'd7    // restart after announced loss
  } sync_e;

  // B-TYPE of indirect messages, and RCODE of ResourceFull.
  localparam logic [1:0] BtypeJump = 2'd0;        // indirect jump / trap return / sync
  localparam logic [1:0] BtypeException = 2'd2;
  localparam logic [1:0] BtypeInterrupt = 2'd3;
  localparam logic [3:0] RcodeIcntFull = 4'd0;
  localparam logic [3:0] RcodeHistFull = 4'd1;

  typedef struct packed {
    logic [11:0] fixed;
    logic [3:0]  fixed_bits;
    logic [1:0]  nvar;      // 1..3
    logic [63:0] v0;
    logic [63:0] v1;
    logic [63:0] v2;
  } rec_t;

  localparam logic [5:0] TcDirectBranch      = 6'd3;
  localparam logic [5:0] TcIndirectBranch    = 6'd4;
  localparam logic [5:0] TcError             = 6'd8;
  localparam logic [5:0] TcProgTraceSync     = 6'd9;
  localparam logic [5:0] TcIndirectBranchSync = 6'd12;
  localparam logic [5:0] TcResourceFull      = 6'd27;
  localparam logic [5:0] TcIndirectBranchHist = 6'd28;
  localparam logic [5:0] TcIndirectBranchHistSync = 6'd29;
  localparam logic [5:0] TcProgTraceCorrelation = 6'd33;

  function automatic rec_t mk_rec(logic [11:0] fixed, logic [3:0] fixed_bits, logic [1:0] nvar,
                                  logic [63:0] v0, logic [63:0] v1, logic [63:0] v2);
    rec_t r;
    r.fixed = fixed;
    r.fixed_bits = fixed_bits;
    r.nvar = nvar;
    r.v0 = v0;
    r.v1 = v1;
    r.v2 = v2;
    return r;
  endfunction

  function automatic logic [63:0] icnt64(logic [IcntBits-1:0] icnt);
    return {{(64 - IcntBits){1'b0}}, icnt};
  endfunction

  function automatic logic [63:0] hist64(logic [HistBits-1:0] hist);
    return {{(64 - HistBits){1'b0}}, hist};
  endfunction

  function automatic rec_t mk_direct_branch(logic [IcntBits-1:0] icnt);
    return mk_rec({6'd0, TcDirectBranch}, 4'd6, 2'd1, icnt64(icnt), 64'd0, 64'd0);
  endfunction

  function automatic rec_t mk_indirect_branch(logic [1:0] btype, logic [IcntBits-1:0] icnt,
                                              logic [63:0] uaddr);
    return mk_rec({4'd0, btype, TcIndirectBranch}, 4'd8, 2'd2, icnt64(icnt), uaddr, 64'd0);
  endfunction

  // Error(ETYPE=0, ECODE=0b100): program trace messages lost.
  function automatic rec_t mk_error();
    return mk_rec({2'd0, 4'd0, TcError}, 4'd10, 2'd1, 64'd4, 64'd0, 64'd0);
  endfunction

  function automatic rec_t mk_prog_trace_sync(logic [3:0] sync, logic [IcntBits-1:0] icnt,
                                              logic [63:0] faddr);
    return mk_rec({2'd0, sync, TcProgTraceSync}, 4'd10, 2'd2, icnt64(icnt), faddr, 64'd0);
  endfunction

  function automatic rec_t mk_indirect_branch_sync(logic [3:0] sync, logic [1:0] btype,
                                                   logic [IcntBits-1:0] icnt,
                                                   logic [63:0] faddr);
    return mk_rec({btype, sync, TcIndirectBranchSync}, 4'd12, 2'd2, icnt64(icnt), faddr,
                  64'd0);
  endfunction

  function automatic rec_t mk_resource_full(logic [3:0] rcode, logic [63:0] rdata);
    return mk_rec({2'd0, rcode, TcResourceFull}, 4'd10, 2'd1, rdata, 64'd0, 64'd0);
  endfunction

  function automatic rec_t mk_indirect_branch_hist(logic [1:0] btype, logic [IcntBits-1:0] icnt,
                                                   logic [63:0] uaddr,
                                                   logic [HistBits-1:0] hist);
    return mk_rec({4'd0, btype, TcIndirectBranchHist}, 4'd8, 2'd3, icnt64(icnt), uaddr,
                  hist64(hist));
  endfunction

  function automatic rec_t mk_indirect_branch_hist_sync(logic [3:0] sync, logic [1:0] btype,
                                                        logic [IcntBits-1:0] icnt,
                                                        logic [63:0] faddr,
                                                        logic [HistBits-1:0] hist);
    return mk_rec({btype, sync, TcIndirectBranchHistSync}, 4'd12, 2'd3, icnt64(icnt), faddr,
                  hist64(hist));
  endfunction

  // ProgTraceCorrelation(EVCODE=4, CDF, I-CNT [, HIST when CDF=1]).
  function automatic rec_t mk_correlation(logic htm, logic [IcntBits-1:0] icnt,
                                          logic [HistBits-1:0] hist);
    if (htm) begin
      return mk_rec({2'd1, 4'd4, TcProgTraceCorrelation}, 4'd12, 2'd2, icnt64(icnt),
                    hist64(hist), 64'd0);
    end
    return mk_rec({2'd0, 4'd4, TcProgTraceCorrelation}, 4'd12, 2'd1, icnt64(icnt), 64'd0, 64'd0);
  endfunction

  // The records closing a window (section 5): the ProgTraceCorrelation, preceded by Error during
  // a loss (its I-CNT and HIST then empty); n is their count.
  function automatic void mk_close_records(input logic lost, input logic htm,
                                           input logic [IcntBits-1:0] icnt,
                                           input logic [HistBits-1:0] hist,
                                           inout rec_t r [3], output logic [1:0] n);
    if (lost) begin
      r[0] = mk_error();
      r[1] = mk_correlation(htm, '0, HistEmpty);
      n = 2'd2;
    end else begin
      r[0] = mk_correlation(htm, icnt, hist);
      n = 2'd1;
    end
  endfunction

endpackage
