// N-Trace message generator and MDO/MSEO packer (docs/encoder-behaviour.md section 8).
//
// What: takes one record at a time from the message queue and emits its bytes, one per cycle
// while the output FIFO has room: byte = {MDO[5:0], MSEO[1:0]}.
//
// How: a variable field is shifted out of a 78-bit register six bits at a time. The first
// variable field is loaded together with the fixed fields below it ({v0, fixed}), so it starts in
// the leftover bits of the last fixed MDO; later fields start in a new MDO. A field ends at the
// first MDO after which the remaining value is zero, but not before a minimum MDO count (the
// fixed MDOs plus one, or one for later fields): this is leading-zero suppression, with a zero
// value taking the leftover bits or one MDO. The end MSEO is 01, or 11 on the last field.
module ctte_packer
  import ctte_pkg::*;
#(
  parameter int unsigned Mutant = MutantNone   // docs/mutants.md
) (
  input  logic       clk,
  input  logic       rst_n,
  input  rec_t       head,
  input  logic       q_empty,
  output logic       q_deq,
  input  logic       out_full,
  output logic       out_push,
  output logic [7:0] out_byte,
  output logic       out_eom,    // this byte ends a message (MSEO 11)
  output logic       busy
);

  logic        busy_q;
  logic [77:0] sh_q;
  logic [3:0]  k_q;        // MDOs emitted in the current field
  logic [3:0]  mink_q;     // minimum MDOs of the current field
  logic [1:0]  field_q;    // index of the current variable field
  logic [1:0]  nvar_q;
  logic [63:0] v1_q, v2_q;

  logic field_end, last_field, msg_end, emit, load, hung;
  logic [31:0] loaded_q, eoms_q;  // messages taken from the queue / ended (assertion below)
  // MutantOutputHang: after 128 messages the packer never takes another record.
  assign hung = (Mutant == MutantOutputHang) && loaded_q >= 32'd128;
  logic [1:0] mseo;

  assign emit = busy_q && !out_full;
  assign field_end = (sh_q[77:6] == '0) && (k_q + 4'd1 >= mink_q);
  assign last_field = (field_q + 2'd1 == nvar_q);
  assign msg_end = emit && field_end && last_field;
  assign mseo = !field_end ? 2'b00 : (last_field ? 2'b11 : 2'b01);
  assign load = !q_empty && (!busy_q || msg_end) && !hung;

  assign q_deq = load;
  assign out_push = emit;
  assign out_byte = {sh_q[5:0], mseo};
  assign out_eom = msg_end;
  assign busy = busy_q;

  function automatic logic [77:0] first_field(logic [11:0] fixed, logic [3:0] fixed_bits,
                                              logic [63:0] v0);
    logic [11:0] fx;
    fx = fixed & ((12'd1 << fixed_bits) - 12'd1);
    case (fixed_bits)
      4'd6:    return {8'd0, v0, fx[5:0]};
      4'd8:    return {6'd0, v0, fx[7:0]};
      4'd10:   return {4'd0, v0, fx[9:0]};
      default: return {2'd0, v0, fx};
    endcase
  endfunction

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      busy_q <= 1'b0;
      sh_q <= '0;
      k_q <= '0;
      mink_q <= '0;
      field_q <= '0;
      nvar_q <= '0;
      v1_q <= '0;
      v2_q <= '0;
    end else if (load) begin
      busy_q <= 1'b1;
      sh_q <= first_field(head.fixed, head.fixed_bits, head.v0);
      k_q <= '0;
      mink_q <= (head.fixed_bits == 4'd12) ? 4'd3 : 4'd2;
      field_q <= 2'd0;
      nvar_q <= head.nvar;
      v1_q <= head.v1;
      v2_q <= head.v2;
    end else if (emit) begin
      if (msg_end) begin
        busy_q <= 1'b0;
      end else if (field_end) begin
        sh_q <= {14'd0, (field_q == 2'd0) ? v1_q : v2_q};
        k_q <= '0;
        mink_q <= 4'd1;
        field_q <= field_q + 2'd1;
      end else begin
        sh_q <= {6'd0, sh_q[77:6]};
        k_q <= k_q + 4'd1;
      end
    end
  end

  // Exactly one end-of-message MSEO per message: every record taken from the queue has produced
  // exactly one MSEO 11 byte once it is done (eom == loaded - busy at all times), and no byte
  // other than a message's last carries MSEO 11.
  always_ff @(posedge clk) begin
    if (!rst_n) begin
      loaded_q <= '0;
      eoms_q <= '0;
    end else begin
      loaded_q <= loaded_q + {31'd0, load};
      eoms_q <= eoms_q + {31'd0, emit && mseo == 2'b11};
    end
  end

  always_ff @(posedge clk) begin
    if (rst_n) begin
      assert (eoms_q + {31'd0, busy_q} == loaded_q)
        else $error("end-of-message count %0d does not match %0d messages", eoms_q, loaded_q);
      if (emit) begin
        assert ((mseo == 2'b11) == msg_end)
          else $error("MSEO 11 on a byte that does not end the message");
        assert (k_q < 4'd13) else $error("variable field longer than 13 MDOs");
      end
    end
  end

endmodule
