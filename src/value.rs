//! Fixed-width bit vectors: the one value representation shared by the IR's constants, the
//! interpreter and the machine state.
//!
//! Values up to 64 bits (nearly all of them) live inline in one word; wider ones (the 65- to
//! 2048-bit temporaries of a few entries) keep their words in a boxed slice. Bits above `width`
//! are always zero.

use std::fmt;

/// A bit vector of 1 to 2048 bits.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Bits {
    width: u32,
    repr: Repr,
}

#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr {
    Small(u64),
    Wide(Box<[u64]>),
}

fn words_for(width: u32) -> usize {
    width.div_ceil(64) as usize
}

impl Bits {
    /// A value of `width` bits from the low bits of `value`.
    pub fn from_u64(width: u32, value: u64) -> Bits {
        Bits::from_words(width, &[value])
    }

    /// A value of `width` bits from the low bits of `value`.
    pub fn from_u128(width: u32, value: u128) -> Bits {
        Bits::from_words(width, &[value as u64, (value >> 64) as u64])
    }

    /// Zero of `width` bits.
    pub fn zero(width: u32) -> Bits {
        Bits::from_words(width, &[])
    }

    /// A value of `width` bits from little-endian 64-bit words; missing words are zero and
    /// bits beyond `width` are dropped.
    pub fn from_words(width: u32, words: &[u64]) -> Bits {
        let width = width.max(1);
        if width <= 64 {
            let v = words.first().copied().unwrap_or(0);
            return Bits {
                width,
                repr: Repr::Small(v & mask64(width)),
            };
        }
        let n = words_for(width);
        let mut out = vec![0u64; n];
        for (dst, src) in out.iter_mut().zip(words) {
            *dst = *src;
        }
        let top = width % 64;
        if top != 0 {
            out[n - 1] &= mask64(top);
        }
        Bits {
            width,
            repr: Repr::Wide(out.into_boxed_slice()),
        }
    }

    /// Parses hex digits (no prefix, `_` allowed) into a value of `width` bits; `None` when
    /// a digit is not hex.
    pub fn from_hex(width: u32, digits: &str) -> Option<Bits> {
        let mut words = vec![0u64; words_for(width.max(1)) + 1];
        let mut bit = 0usize;
        for c in digits.chars().rev() {
            if c == '_' {
                continue;
            }
            let d = c.to_digit(16)? as u64;
            let (w, s) = (bit / 64, bit % 64);
            if w < words.len() {
                words[w] |= d << s;
                if s > 60 && w + 1 < words.len() {
                    words[w + 1] |= d >> (64 - s);
                }
            }
            bit += 4;
        }
        Some(Bits::from_words(width, &words))
    }

    /// The width in bits.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// The little-endian words (one for values up to 64 bits).
    pub fn words(&self) -> &[u64] {
        match &self.repr {
            Repr::Small(v) => std::slice::from_ref(v),
            Repr::Wide(w) => w,
        }
    }

    /// The low 64 bits.
    pub fn low_u64(&self) -> u64 {
        self.words()[0]
    }

    /// The low 128 bits.
    pub fn low_u128(&self) -> u128 {
        let w = self.words();
        w[0] as u128 | (w.get(1).copied().unwrap_or(0) as u128) << 64
    }

    /// True when every bit is zero.
    pub fn is_zero(&self) -> bool {
        self.words().iter().all(|w| *w == 0)
    }
}

/// A mask of the low `width` bits (all ones for 64 and above).
pub fn mask64(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

impl fmt::Debug for Bits {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}'{self}", self.width)
    }
}

impl fmt::Display for Bits {
    /// Prints `0x` and the hex digits, without leading zeros.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let words = self.words();
        let mut started = false;
        f.write_str("0x")?;
        for w in words.iter().rev() {
            if started {
                write!(f, "{w:016x}")?;
            } else if *w != 0 {
                write!(f, "{w:x}")?;
                started = true;
            }
        }
        if !started {
            f.write_str("0")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_values_are_masked() {
        let b = Bits::from_u64(6, 0xff);
        assert_eq!(b.low_u64(), 0x3f);
        assert_eq!(b.to_string(), "0x3f");
        assert_eq!(Bits::zero(32).to_string(), "0x0");
    }

    #[test]
    fn wide_hex_round_trips() {
        let b = Bits::from_hex(130, "3_0000000000000001_0000000000000002").expect("hex");
        assert_eq!(b.words(), &[2, 1, 3]);
        assert_eq!(b.to_string(), "0x300000000000000010000000000000002");
        // Digits beyond the width are dropped.
        let c = Bits::from_hex(8, "1ff").expect("hex");
        assert_eq!(c.low_u64(), 0xff);
        assert!(Bits::from_hex(8, "xz").is_none());
    }
}
