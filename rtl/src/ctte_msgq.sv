// Message record queue of the CTTE encoder: QDEPTH records, up to three enqueued per cycle
// (all of a beat's records at once), one dequeued per cycle by the packer. `free` is the number
// of free entries at the start of the cycle (a same-cycle dequeue is not counted), which is
// what the front end's all-or-none decision uses.
module ctte_msgq
  import ctte_pkg::*;
#(
  parameter int unsigned LogDepth = 4
) (
  input  logic              clk,
  input  logic              rst_n,
  input  logic [1:0]        enq_n,
  input  rec_t              enq_rec0,
  input  rec_t              enq_rec1,
  input  rec_t              enq_rec2,
  input  logic              deq,
  output rec_t              head,
  output logic              empty,
  output logic [LogDepth:0] free
);

  localparam int unsigned Depth = 1 << LogDepth;

  rec_t                mem [Depth];
  logic [LogDepth-1:0] wptr_q, rptr_q;
  logic [LogDepth:0]   count_q;

  assign head = mem[rptr_q];
  assign empty = (count_q == '0);
  assign free = (LogDepth + 1)'(Depth) - count_q;

  always_ff @(posedge clk) begin
    if (enq_n >= 2'd1) mem[wptr_q] <= enq_rec0;
    if (enq_n >= 2'd2) mem[wptr_q + LogDepth'(1)] <= enq_rec1;
    if (enq_n >= 2'd3) mem[wptr_q + LogDepth'(2)] <= enq_rec2;
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      wptr_q <= '0;
      rptr_q <= '0;
      count_q <= '0;
    end else begin
      wptr_q <= wptr_q + LogDepth'(enq_n);
      rptr_q <= rptr_q + LogDepth'(deq);
      count_q <= count_q + (LogDepth + 1)'(enq_n) - (LogDepth + 1)'(deq);
    end
  end

  always_ff @(posedge clk) begin
    if (rst_n) begin
      assert ({1'b0, count_q} + (LogDepth + 2)'(enq_n) <=
              (LogDepth + 2)'(Depth) + (LogDepth + 2)'(deq))
        else $error("message queue overrun");
      assert (!(deq && empty)) else $error("message queue underrun");
    end
  end

endmodule
