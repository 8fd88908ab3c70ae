//! SDWA (sub-dword addressing, CDNA's VOP1/VOP2/VOPC `src0` code 249): the extension dword
//! selects a byte or word of each 32-bit source (zero- or sign-extended), and writes the
//! result into a byte or word of the destination, the other bits padded with zeros,
//! sign-extended or kept.
//!
//! Extension dword (GFX9 layout): bits 7:0 the `src0` VGPR, 10:8 `dst_sel`, 12:11
//! `dst_unused`, 18:16 `src0_sel`, 19 `src0_sext`, 20/21 `src0` neg/abs, 23 `src0` is an
//! SGPR, 26:24 `src1_sel`, 27 `src1_sext`, 28/29 `src1` neg/abs, 31 `src1` is an SGPR. A
//! select is BYTE_0..3 (0..3), WORD_0/1 (4, 5) or DWORD (6). VOPC has no destination select:
//! bits 14:8 are an SGPR and bit 15 (`sd`) says the mask goes there instead of VCC.

/// The `src0` code marking an SDWA extension dword.
pub(crate) const SDWA: u32 = 249;

/// Whether an extension dword is SDWA.
pub(crate) fn is_sdwa(ext: Option<(u32, u32)>) -> bool {
    matches!(ext, Some((SDWA, _)))
}

/// The (offset, width) in bits a select reads or writes.
fn sel_bits(sel: u32) -> (u32, u32) {
    match sel {
        0..=3 => (8 * sel, 8),
        4 | 5 => (16 * (sel - 4), 16),
        _ => (0, 32),
    }
}

/// Source `k` (0 or 1) of a 32-bit value as its select reads it.
pub(crate) fn select_source(ext: u32, k: usize, v: u32) -> u32 {
    let shift = if k == 0 { 16 } else { 24 };
    let sel = ext >> shift & 7;
    let sext = ext >> (shift + 3) & 1 == 1;
    let (off, width) = sel_bits(sel);
    if width == 32 {
        return v;
    }
    let x = (v >> off) & ((1 << width) - 1);
    if sext && x >> (width - 1) & 1 == 1 {
        x | !((1u32 << width) - 1)
    } else {
        x
    }
}

/// The SGPR code a VOPC SDWA compare writes its mask to when the extension's `sd` bit (15)
/// is set (bits 14:8, in place of `dst_sel`/`dst_unused`); `None`: it writes VCC.
pub(super) fn vopc_sdst(ext: u32) -> Option<u32> {
    (ext >> 15 & 1 == 1).then_some(ext >> 8 & 0x7f)
}

/// Whether source `k` is an SGPR (the extension's `s0`/`s1` bit).
pub(super) fn source_is_sgpr(ext: u32, k: usize) -> bool {
    ext >> (if k == 0 { 23 } else { 31 }) & 1 == 1
}

/// The destination after writing `result` into `old` by `dst_sel`/`dst_unused`.
pub(crate) fn merge_dest(ext: u32, old: u32, result: u32) -> u32 {
    let (off, width) = sel_bits(ext >> 8 & 7);
    if width == 32 {
        return result;
    }
    let mask = ((1u32 << width) - 1) << off;
    let placed = (result << off) & mask;
    match ext >> 11 & 3 {
        // UNUSED_SEXT: the bits above take the selected field's sign.
        1 => {
            let sign = placed >> (off + width - 1) & 1 == 1;
            let above = if off + width >= 32 {
                0
            } else {
                !0u32 << (off + width)
            };
            placed | if sign { above } else { 0 }
        }
        // UNUSED_PRESERVE.
        2 => (old & !mask) | placed,
        // UNUSED_PAD.
        _ => placed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selects_and_merges() {
        // src0_sel WORD_1, src1_sel BYTE_2 with sext.
        let ext = 5 << 16 | (2 | 8) << 24;
        assert_eq!(select_source(ext, 0, 0x1234_5678), 0x1234);
        assert_eq!(select_source(ext, 1, 0x0080_0000), 0xffff_ff80);
        // dst_sel WORD_1: pad, sext, preserve.
        assert_eq!(merge_dest(5 << 8, 0xaaaa_bbbb, 0x8001), 0x8001_0000);
        assert_eq!(merge_dest(4 << 8 | 1 << 11, 0, 0x8001), 0xffff_8001);
        assert_eq!(merge_dest(5 << 8 | 2 << 11, 0xaaaa_bbbb, 0x1), 0x0001_bbbb);
        assert_eq!(merge_dest(6 << 8, 0xaaaa_bbbb, 0x1), 1);
    }
}
