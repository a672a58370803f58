// Register file of the CTTE encoder (docs/encoder-behaviour.md section 9): trTeControl and the
// other TCI registers at their standard offsets, and the vendor identity, counter and status
// registers from 0x100. Writes are synchronous to the fabric clock; reads are combinational.
// Counters are 32-bit, wrap, and clear while trTeActive is 0.
module ctte_regs #(
  parameter logic [63:0] BuildId = 64'd0,
  parameter logic [7:0]  ProfileId = 8'd1,
  parameter int unsigned LogQDepth = 4,
  parameter int unsigned LogFifoDepth = 4,
  parameter logic [7:0]  MutantId = 8'd0
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
  logic [31:0] msgs_q, bytes_q, episodes_q, dropped_q, halfwords_q;

  localparam logic [31:0] Impl = 32'hC701_0101;
  localparam logic [31:0] Caps = 32'h0000_007F;

  logic unused_wdata;  // reserved and read-only bits of trTeControl
  assign unused_wdata = ^{wdata[31:24], wdata[19:18], wdata[15:13], wdata[11:7], wdata[3]};

  logic ctl_we;
  assign ctl_we = we && addr == 32'h0;

  function automatic logic [2:0] legal_mode(logic [2:0] m);
    if (m == 3'd0 || m == 3'd3) return m;
    return 3'd6;
  endfunction

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      active_q <= 1'b0;
      enable_q <= 1'b0;
      tracing_q <= 1'b0;
      stall_ovf_q <= 1'b0;
      mode_q <= 3'd6;
      sync_mode_q <= 2'd0;
      sync_max_q <= 4'd0;
    end else begin
      if (ctl_we) begin
        active_q <= wdata[0];
        enable_q <= wdata[1];
        tracing_q <= wdata[2];
        mode_q <= legal_mode(wdata[6:4]);
        sync_mode_q <= (wdata[17:16] == 2'd2) ? 2'd0 : wdata[17:16];
        sync_max_q <= wdata[23:20];
      end
      // trTeInstStallOrOverflow: set by a loss episode, RW1C, cleared when Enable is set.
      if (ev_episode) stall_ovf_q <= 1'b1;
      else if (ctl_we && (wdata[12] || (wdata[1] && !enable_q))) stall_ovf_q <= 1'b0;
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

  always_comb begin
    case (addr)
      32'h000: rdata = {5'd0, 3'd1, sync_max_q, 2'd0, sync_mode_q, 1'b1, 1'b0, 1'b0, stall_ovf_q,
                        2'd0, 1'b0, 2'd0, mode_q, st_empty, tracing_q, enable_q, active_q};
      32'h004: rdata = Impl;
      32'h008: rdata = 32'd0;
      32'h00C: rdata = 32'd0;
      32'h010: rdata = 32'd0;
      32'h100: rdata = BuildId[31:0];
      32'h104: rdata = BuildId[63:32];
      32'h108: rdata = {8'(LogFifoDepth), 8'(LogQDepth), 8'd64, ProfileId};
      32'h10C: rdata = Caps;
      32'h110: rdata = msgs_q;
      32'h114: rdata = bytes_q;
      32'h118: rdata = episodes_q;
      32'h11C: rdata = dropped_q;
      32'h120: rdata = halfwords_q;
      32'h124: rdata = {28'd0, st_close_waiting, st_window_open, st_lost, st_empty};
      32'h128: rdata = {24'd0, MutantId};
      default: rdata = 32'd0;
    endcase
  end

endmodule
