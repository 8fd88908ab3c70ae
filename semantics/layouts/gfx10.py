# GFX10 (RDNA 1 and 2: gfx1010, gfx1030) instruction encodings, in the dialect of the wheel's
# `ins.py` so the same reader parses them. Written by us, not copied from the wheel: each bit
# position was read from llvm-mc-22's `-show-encoding` output for probe instructions
# (`tools/opcode_sweep.py --probe gfx1030` prints them) and agrees with LLVM's GFX10 encoding
# classes (SIInstrFormats.td, SMInstructions.td, FLATInstructions.td, BUFInstructions.td,
# DSInstructions.td, VOPInstructions.td). Field names are the wheel's RDNA 3 names, so RDNA 3
# operand tables carry over. Opcode sets are not listed: `semantics/targets/<target>.tsv`
# (from `tools/opcode_sweep.py`) says which opcodes exist.

class DS(Inst):
  encoding = FixedBitField(31, 26, 0b110110)
  op = EnumBitField(25, 18, DSOp)
  vdst = VGPRField(63, 56)
  addr = VGPRField(39, 32)
  data0 = VGPRField(47, 40)
  data1 = VGPRField(55, 48)
  offset0 = BitField(7, 0)
  offset1 = BitField(15, 8)
  gds = BitField(17, 17)

class FLAT(Inst):
  encoding = FixedBitField(31, 26, 0b110111)
  op = EnumBitField(24, 18, FLATOp)
  vdst = VGPRField(63, 56)
  addr = VGPRField(39, 32)
  data = VGPRField(47, 40)
  saddr = SGPRField(54, 48, default=NULL)
  offset = BitField(11, 0)
  seg = FixedBitField(15, 14, 0)
  glc = BitField(16, 16)
  dlc = BitField(12, 12)
  slc = BitField(17, 17)
  lds = BitField(13, 13)

class GLOBAL(Inst):
  encoding = FixedBitField(31, 26, 0b110111)
  op = EnumBitField(24, 18, GLOBALOp)
  vdst = VGPRField(63, 56)
  addr = VGPRField(39, 32)
  data = VGPRField(47, 40)
  saddr = SGPRField(54, 48, default=NULL)
  offset = BitField(11, 0)
  seg = FixedBitField(15, 14, 2)
  glc = BitField(16, 16)
  dlc = BitField(12, 12)
  slc = BitField(17, 17)
  lds = BitField(13, 13)

class SCRATCH(Inst):
  encoding = FixedBitField(31, 26, 0b110111)
  op = EnumBitField(24, 18, SCRATCHOp)
  vdst = VGPRField(63, 56)
  addr = VGPRField(39, 32)
  data = VGPRField(47, 40)
  saddr = SGPRField(54, 48, default=NULL)
  offset = BitField(11, 0)
  seg = FixedBitField(15, 14, 1)
  glc = BitField(16, 16)
  dlc = BitField(12, 12)
  slc = BitField(17, 17)
  lds = BitField(13, 13)

class MUBUF(Inst):
  encoding = FixedBitField(31, 26, 0b111000)
  op = EnumBitField(25, 18, MUBUFOp)
  vdata = VGPRField(47, 40)
  vaddr = VGPRField(39, 32)
  srsrc = SRsrcField(52, 48)
  soffset = SSrcField(63, 56, default=NULL)
  offset = BitField(11, 0)
  offen = BitField(12, 12)
  idxen = BitField(13, 13)
  glc = BitField(14, 14)
  dlc = BitField(15, 15)
  lds = BitField(16, 16)
  slc = BitField(54, 54)
  tfe = BitField(55, 55)

class SMEM(Inst):
  encoding = FixedBitField(31, 26, 0b111101)
  op = EnumBitField(25, 18, SMEMOp)
  sdata = SGPRField(12, 6)
  sbase = SBaseField(5, 0)
  soffset = SGPRField(63, 57, default=NULL)
  offset = BitField(52, 32)
  glc = BitField(16, 16)
  dlc = BitField(14, 14)

class SOP1(Inst):
  encoding = FixedBitField(31, 23, 0b101111101)
  op = EnumBitField(15, 8, SOP1Op)
  sdst = SGPRField(22, 16)
  ssrc0 = SSrcField(7, 0)

class SOP2(Inst):
  encoding = FixedBitField(31, 30, 0b10)
  op = EnumBitField(29, 23, SOP2Op)
  sdst = SGPRField(22, 16)
  ssrc0 = SSrcField(7, 0)
  ssrc1 = SSrcField(15, 8)

class SOPC(Inst):
  encoding = FixedBitField(31, 23, 0b101111110)
  op = EnumBitField(22, 16, SOPCOp)
  ssrc0 = SSrcField(7, 0)
  ssrc1 = SSrcField(15, 8)

class SOPK(Inst):
  encoding = FixedBitField(31, 28, 0b1011)
  op = EnumBitField(27, 23, SOPKOp)
  sdst = SGPRField(22, 16)
  simm16 = BitField(15, 0)

class SOPP(Inst):
  encoding = FixedBitField(31, 23, 0b101111111)
  op = EnumBitField(22, 16, SOPPOp)
  simm16 = BitField(15, 0)

class VOP1(Inst):
  encoding = FixedBitField(31, 25, 0b0111111)
  op = EnumBitField(16, 9, VOP1Op)
  vdst = VGPRField(24, 17)
  src0 = SrcField(8, 0)

class VOP2(Inst):
  encoding = FixedBitField(31, 31, 0b0)
  op = EnumBitField(30, 25, VOP2Op)
  vdst = VGPRField(24, 17)
  src0 = SrcField(8, 0)
  vsrc1 = VGPRField(16, 9)

class VOP3(Inst):
  encoding = FixedBitField(31, 26, 0b110101)
  op = EnumBitField(25, 16, VOP3Op)
  vdst = VGPRField(7, 0)
  src0 = SrcField(40, 32)
  src1 = SrcField(49, 41)
  src2 = SrcField(58, 50)
  omod = BitField(60, 59)
  neg = BitField(63, 61)
  abs = BitField(10, 8)
  clmp = BitField(15, 15)
  opsel = BitField(14, 11)

class VOP3P(Inst):
  encoding = FixedBitField(31, 24, 0b11001100)
  op = EnumBitField(22, 16, VOP3POp)
  vdst = VGPRField(7, 0)
  src0 = SrcField(40, 32)
  src1 = SrcField(49, 41)
  src2 = SrcField(58, 50)
  neg = BitField(63, 61)
  neg_hi = BitField(10, 8)
  clmp = BitField(15, 15)
  opsel = BitField(13, 11)
  opsel_hi = BitField(60, 59, default=3)
  opsel_hi2 = BitField(14, 14, default=1)

class VOP3SD(Inst):
  encoding = FixedBitField(31, 26, 0b110101)
  op = EnumBitField(25, 16, VOP3SDOp)
  vdst = VGPRField(7, 0)
  sdst = SGPRField(14, 8)
  src0 = SrcField(40, 32)
  src1 = SrcField(49, 41)
  src2 = SrcField(58, 50)
  omod = BitField(60, 59)
  neg = BitField(63, 61)
  clmp = BitField(15, 15)

class VOPC(Inst):
  encoding = FixedBitField(31, 25, 0b0111110)
  op = EnumBitField(24, 17, VOPCOp)
  src0 = SrcField(8, 0)
  vsrc1 = VGPRField(16, 9)

class SOP1_LIT(SOP1):
  op = EnumBitField(15, 8, SOP1Op)
  literal = BitField(63, 32)

class SOP2_LIT(SOP2):
  op = EnumBitField(29, 23, SOP2Op)
  literal = BitField(63, 32)

class SOPC_LIT(SOPC):
  op = EnumBitField(22, 16, SOPCOp)
  literal = BitField(63, 32)

class SOPK_LIT(SOPK):
  op = EnumBitField(27, 23, SOPKOp)
  literal = BitField(63, 32)

class VOP1_DPP16(VOP1):
  op = EnumBitField(16, 9, VOP1Op)
  vsrc0 = VGPRField(39, 32)
  dpp = BitField(48, 40)
  fi = BitField(50, 50)
  bc = BitField(51, 51)
  row_mask = BitField(63, 60)
  bank_mask = BitField(59, 56)
  src0_neg = BitField(52, 52)
  src0_abs = BitField(53, 53)
  src1_neg = BitField(54, 54)
  src1_abs = BitField(55, 55)

class VOP1_DPP8(VOP1):
  op = EnumBitField(16, 9, VOP1Op)
  vsrc0 = VGPRField(39, 32)
  lane_sel_0 = BitField(42, 40)
  lane_sel_1 = BitField(45, 43)
  lane_sel_2 = BitField(48, 46)
  lane_sel_3 = BitField(51, 49)
  lane_sel_4 = BitField(54, 52)
  lane_sel_5 = BitField(57, 55)
  lane_sel_6 = BitField(60, 58)
  lane_sel_7 = BitField(63, 61)

class VOP1_LIT(VOP1):
  op = EnumBitField(16, 9, VOP1Op)
  literal = BitField(63, 32)

class VOP1_SDWA(VOP1):
  op = EnumBitField(16, 9, VOP1Op)
  vsrc0 = VGPRField(39, 32)
  omod = BitField(47, 46)
  clmp = BitField(45, 45)
  src0_neg = BitField(52, 52)
  src0_abs = BitField(53, 53)
  src1_neg = BitField(60, 60)
  src1_abs = BitField(61, 61)
  dst_sel = BitField(42, 40)
  dst_unused = BitField(44, 43)
  src0_sel = BitField(50, 48)
  src1_sel = BitField(58, 56)
  src0_sext = BitField(51, 51)
  s0 = BitField(55, 55)
  src1_sext = BitField(59, 59)
  s1 = BitField(63, 63)

class VOP2_DPP16(VOP2):
  op = EnumBitField(30, 25, VOP2Op)
  vsrc0 = VGPRField(39, 32)
  dpp = BitField(48, 40)
  fi = BitField(50, 50)
  bc = BitField(51, 51)
  row_mask = BitField(63, 60)
  bank_mask = BitField(59, 56)
  src0_neg = BitField(52, 52)
  src0_abs = BitField(53, 53)
  src1_neg = BitField(54, 54)
  src1_abs = BitField(55, 55)

class VOP2_DPP8(VOP2):
  op = EnumBitField(30, 25, VOP2Op)
  vsrc0 = VGPRField(39, 32)
  lane_sel_0 = BitField(42, 40)
  lane_sel_1 = BitField(45, 43)
  lane_sel_2 = BitField(48, 46)
  lane_sel_3 = BitField(51, 49)
  lane_sel_4 = BitField(54, 52)
  lane_sel_5 = BitField(57, 55)
  lane_sel_6 = BitField(60, 58)
  lane_sel_7 = BitField(63, 61)

class VOP2_LIT(VOP2):
  op = EnumBitField(30, 25, VOP2Op)
  literal = BitField(63, 32)

class VOP2_SDWA(VOP2):
  op = EnumBitField(30, 25, VOP2Op)
  vsrc0 = VGPRField(39, 32)
  omod = BitField(47, 46)
  clmp = BitField(45, 45)
  src0_neg = BitField(52, 52)
  src0_abs = BitField(53, 53)
  src1_neg = BitField(60, 60)
  src1_abs = BitField(61, 61)
  dst_sel = BitField(42, 40)
  dst_unused = BitField(44, 43)
  src0_sel = BitField(50, 48)
  src1_sel = BitField(58, 56)
  src0_sext = BitField(51, 51)
  s0 = BitField(55, 55)
  src1_sext = BitField(59, 59)
  s1 = BitField(63, 63)

class VOP3P_LIT(VOP3P):
  op = EnumBitField(22, 16, VOP3POp)
  literal = BitField(95, 64)

class VOP3SD_LIT(VOP3SD):
  op = EnumBitField(25, 16, VOP3SDOp)
  literal = BitField(95, 64)

class VOP3_LIT(VOP3):
  op = EnumBitField(25, 16, VOP3Op)
  literal = BitField(95, 64)

class VOPC_LIT(VOPC):
  op = EnumBitField(24, 17, VOPCOp)
  literal = BitField(63, 32)

class VOPC_SDWA_SDST(VOPC):
  op = EnumBitField(24, 17, VOPCOp)
  sdst = SGPRField(46, 40)
  vsrc0 = VGPRField(39, 32)
  src0_neg = BitField(52, 52)
  src0_abs = BitField(53, 53)
  src1_neg = BitField(60, 60)
  src1_abs = BitField(61, 61)
  src0_sel = BitField(50, 48)
  src1_sel = BitField(58, 56)
  sd = BitField(47, 47)
  src0_sext = BitField(51, 51)
  s0 = BitField(55, 55)
  src1_sext = BitField(59, 59)
  s1 = BitField(63, 63)

class VOP1_SDST(VOP1):
  op = EnumBitField(16, 9, VOP1Op)
  vdst = SSrcField(24, 17)

class VOP1_SDST_LIT(VOP1_SDST):
  literal = BitField(63, 32)

class VOP3_SDST(VOP3):
  op = EnumBitField(25, 16, VOP3Op)
  vdst = SSrcField(7, 0)

class VOP3_SDST_LIT(VOP3_SDST):
  literal = BitField(95, 64)
