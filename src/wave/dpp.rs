//! DPP lane selection: which lane each lane's `src0` comes from, and which lanes a DPP16
//! instruction writes at all.
//!
//! A DPP16 control (`quad_perm`, `row_shl`/`row_shr`/`row_ror`, mirrors, `row_share`/
//! `row_xmask`) picks a source lane per lane; `row_mask` and `bank_mask` (bits 31:28 and 27:24
//! of the extension dword) switch whole rows of 16 lanes and banks of 4 lanes (of every row)
//! off. A switched-off lane behaves as a lane whose EXEC bit is clear for this one
//! instruction: its destination keeps its old value and its bit of a VCC/carry lane mask is not
//! set. A lane whose source lane is out of its row or inactive reads 0 with `bound_ctrl:1`
//! (bit 19); without it the lane is not written either. `fi` (fetch inactive, bit 18) lets a
//! lane read an inactive source lane. DPP8 (`src0` 233, or 234 with `fi`) selects within
//! groups of eight lanes and has no masks.

/// The `src0` codes of the DPP forms.
const DPP8: u32 = 233;
const DPP8_FI: u32 = 234;
const DPP16: u32 = 250;

/// The lane a DPP16/DPP8 control reads for `lane`, or `None` when the control reads nothing
/// there (shifted out of the row, or a reserved control).
pub(super) fn select(ext: (u32, u32), lane: u32, wave_size: u32) -> Option<u32> {
    let (kind, w) = ext;
    if kind == DPP8 || kind == DPP8_FI {
        let sel = (w >> (8 + 3 * (lane % 8))) & 7;
        return Some(lane / 8 * 8 + sel);
    }
    let ctrl = (w >> 8) & 0x1ff;
    let row = lane / 16 * 16;
    let i = lane % 16;
    let src = match ctrl {
        // quad_perm: each lane of a quad picks a lane of the same quad.
        0x000..=0x0ff => lane / 4 * 4 + ((ctrl >> (2 * (lane % 4))) & 3),
        // row_shl:n / row_shr:n (lanes shifted out of the row read nothing).
        0x101..=0x10f => {
            let n = ctrl & 0xf;
            if i + n < 16 {
                lane + n
            } else {
                return None;
            }
        }
        0x111..=0x11f => {
            let n = ctrl & 0xf;
            if i >= n {
                lane - n
            } else {
                return None;
            }
        }
        // row_ror:n.
        0x121..=0x12f => row + (i + 16 - (ctrl & 0xf)) % 16,
        // row_mirror, row_half_mirror.
        0x140 => row + 15 - i,
        0x141 => row + (i / 8 * 8) + 7 - (i % 8),
        // row_share:n, row_xmask:n (RDNA).
        0x150..=0x15f => row + (ctrl & 0xf),
        0x160..=0x16f => row + (i ^ (ctrl & 0xf)),
        _ => return None,
    };
    (src < wave_size).then_some(src)
}

/// Whether a DPP16 source is usable for `lane`: `Some(l)` reads lane `l`, `None` has no valid
/// source (out of the row, or an inactive lane without `fi`).
pub(super) fn source_lane(ext: (u32, u32), lane: u32, wave_size: u32, exec: u64) -> Option<u32> {
    let l = select(ext, lane, wave_size)?;
    let (kind, w) = ext;
    let fetch_inactive = match kind {
        DPP16 => w >> 18 & 1 == 1,
        DPP8_FI => true,
        _ => false,
    };
    // DPP8 reads within its group whatever the source lane's EXEC bit (its `fi` only
    // matters for lanes the hardware would otherwise zero, which this model does not track).
    if kind == DPP16 && !fetch_inactive && exec >> l & 1 == 0 {
        return None;
    }
    Some(l)
}

/// Whether an invalid DPP16 source reads as 0 (`bound_ctrl:1`) rather than disabling the lane.
pub(super) fn bound_ctrl(ext: (u32, u32)) -> bool {
    ext.0 == DPP16 && ext.1 >> 19 & 1 == 1
}

/// The lanes a DPP16 instruction writes, given EXEC at issue: `row_mask` and `bank_mask`
/// switch rows and banks off, and without `bound_ctrl` a lane with no valid source is off too.
/// `None` for non-DPP16 extensions (DPP8, SDWA), which write every active lane.
pub(super) fn write_mask(ext: (u32, u32), wave_size: u32, exec: u64) -> Option<u64> {
    if ext.0 != DPP16 {
        return None;
    }
    let w = ext.1;
    let (row_mask, bank_mask) = (w >> 28 & 0xf, w >> 24 & 0xf);
    let bc = bound_ctrl(ext);
    let mut mask = 0u64;
    for lane in 0..wave_size.min(64) {
        let row_on = row_mask >> (lane / 16) & 1 == 1;
        let bank_on = bank_mask >> (lane % 16 / 4) & 1 == 1;
        let src_ok = bc || source_lane(ext, lane, wave_size, exec).is_some();
        if row_on && bank_on && src_ok {
            mask |= 1 << lane;
        }
    }
    Some(mask & exec)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A DPP16 extension dword: control, row/bank masks, bound_ctrl.
    fn dpp16(ctrl: u32, row: u32, bank: u32, bc: bool) -> (u32, u32) {
        (
            DPP16,
            1 | ctrl << 8 | (bc as u32) << 19 | bank << 24 | row << 28,
        )
    }

    #[test]
    fn row_and_bank_masks_switch_lanes_off() {
        let all = u64::MAX;
        // Rows 0 and 2 of wave64 on, every bank.
        let m = write_mask(dpp16(0xe4, 0b0101, 0xf, false), 64, all).unwrap();
        assert_eq!(m, 0x0000_ffff_0000_ffff);
        // Bank 1 (lanes 4..7 of each row) off.
        let m = write_mask(dpp16(0xe4, 0xf, 0b1101, false), 32, all & 0xffff_ffff).unwrap();
        assert_eq!(m, 0xff0f_ff0f);
        // row_shl:1 without bound_ctrl: lane 15 of each row has no source.
        let m = write_mask(dpp16(0x101, 0xf, 0xf, false), 32, 0xffff_ffff).unwrap();
        assert_eq!(m, 0x7fff_7fff);
        let m = write_mask(dpp16(0x101, 0xf, 0xf, true), 32, 0xffff_ffff).unwrap();
        assert_eq!(m, 0xffff_ffff);
        // An inactive source lane (lane 1) without fi disables lane 0 under row_shl:1.
        let m = write_mask(dpp16(0x101, 0xf, 0xf, false), 32, 0xffff_fffd).unwrap();
        assert_eq!(m, 0x7fff_7ffc);
        assert_eq!(write_mask((DPP8, 0), 32, 0xffff_ffff), None);
    }
}
