// Asynchronous byte FIFO from the fabric clock domain into the sink clock domain.
// Classic Gray-coded pointers with two-flop synchronizers (Cummings, SNUG 2002): the write side
// compares its pointer with the synchronized read pointer for `full`, the read side with the
// synchronized write pointer for `empty`. Both views are conservative. `w_empty` is the write
// side's (conservative) view of emptiness: when it is 1 the FIFO is truly empty.
module ctte_async_fifo #(
  parameter int unsigned LogDepth = 4,
  parameter int unsigned Width = 8
) (
  input  logic             w_clk,
  input  logic             w_rst_n,
  input  logic             w_push,
  input  logic [Width-1:0] w_data,
  output logic             w_full,
  output logic             w_empty,
  output logic             dbg_true_empty,  // simulation-only: both pointers equal
  input  logic             r_clk,
  input  logic             r_rst_n,
  input  logic             r_pop,
  output logic [Width-1:0] r_data,
  output logic             r_valid
);

  localparam int unsigned Depth = 1 << LogDepth;

  logic [Width-1:0] mem [Depth];

  logic [LogDepth:0] wbin_q, wgray_q, rbin_q, rgray_q;
  logic [LogDepth:0] rgray_w1_q, rgray_w2_q;   // read pointer in the write domain
  logic [LogDepth:0] wgray_r1_q, wgray_r2_q;   // write pointer in the read domain

  function automatic logic [LogDepth:0] bin2gray(logic [LogDepth:0] b);
    return b ^ (b >> 1);
  endfunction

  // ---- write domain ----
  logic [LogDepth:0] wbin_next;
  assign wbin_next = wbin_q + (LogDepth + 1)'(w_push && !w_full);
  assign w_full = (wgray_q == {~rgray_w2_q[LogDepth:LogDepth-1], rgray_w2_q[LogDepth-2:0]});
  assign w_empty = (wgray_q == rgray_w2_q);

  always_ff @(posedge w_clk) begin
    if (w_push && !w_full) mem[wbin_q[LogDepth-1:0]] <= w_data;
  end

  always_ff @(posedge w_clk) begin
    if (!w_rst_n) begin
      wbin_q <= '0;
      wgray_q <= '0;
      rgray_w1_q <= '0;
      rgray_w2_q <= '0;
    end else begin
      wbin_q <= wbin_next;
      wgray_q <= bin2gray(wbin_next);
      rgray_w1_q <= rgray_q;
      rgray_w2_q <= rgray_w1_q;
    end
  end

  // ---- read domain ----
  logic [LogDepth:0] rbin_next;
  // Nothing is offered during reset, whatever the pointers held before it took hold.
  assign r_valid = r_rst_n && (rgray_q != wgray_r2_q);
  assign r_data = mem[rbin_q[LogDepth-1:0]];
  assign rbin_next = rbin_q + (LogDepth + 1)'(r_pop && r_valid);

  always_ff @(posedge r_clk) begin
    if (!r_rst_n) begin
      rbin_q <= '0;
      rgray_q <= '0;
      wgray_r1_q <= '0;
      wgray_r2_q <= '0;
    end else begin
      rbin_q <= rbin_next;
      rgray_q <= bin2gray(rbin_next);
      wgray_r1_q <= wgray_q;
      wgray_r2_q <= wgray_r1_q;
    end
  end

  // Simulation-only cross-domain check: the write side never sees more room than there is.
  always_ff @(posedge w_clk) begin
    if (w_rst_n) begin
      assert (wbin_q - rbin_q <= (LogDepth + 1)'(Depth)) else $error("output FIFO overrun");
      assert (!w_push || !w_full) else $error("push into a full output FIFO");
    end
  end

  // For the trTeEmpty assertion in the top level (simulation only: crosses domains).
  assign dbg_true_empty = (wbin_q == rbin_q);

endmodule
