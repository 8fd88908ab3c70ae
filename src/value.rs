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
    #[inline]
    pub fn from_u64(width: u32, value: u64) -> Bits {
        Bits::from_words(width, &[value])
    }

    /// A value of `width` bits from the low bits of `value`.
    pub fn from_u128(width: u32, value: u128) -> Bits {
        Bits::from_words(width, &[value as u64, (value >> 64) as u64])
    }

    /// Zero of `width` bits.
    #[inline]
    pub fn zero(width: u32) -> Bits {
        Bits::from_words(width, &[])
    }

    /// A value of `width` bits from little-endian 64-bit words; missing words are zero and
    /// bits beyond `width` are dropped.
    #[inline]
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
    #[inline]
    pub fn width(&self) -> u32 {
        self.width
    }

    /// The little-endian words (one for values up to 64 bits).
    #[inline]
    pub fn words(&self) -> &[u64] {
        match &self.repr {
            Repr::Small(v) => std::slice::from_ref(v),
            Repr::Wide(w) => w,
        }
    }

    /// The low 64 bits.
    #[inline]
    pub fn low_u64(&self) -> u64 {
        self.words()[0]
    }

    /// The low 128 bits.
    pub fn low_u128(&self) -> u128 {
        let w = self.words();
        w[0] as u128 | (w.get(1).copied().unwrap_or(0) as u128) << 64
    }

    /// True when every bit is zero.
    #[inline]
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

impl Bits {
    /// A value of `width` bits whose words are produced by `f` over the word index, masked.
    fn map_words(width: u32, n: usize, mut f: impl FnMut(usize) -> u64) -> Bits {
        if width <= 64 {
            return Bits::from_u64(width, f(0));
        }
        let words: Vec<u64> = (0..n).map(&mut f).collect();
        Bits::from_words(width, &words)
    }

    fn word(&self, i: usize) -> u64 {
        self.words().get(i).copied().unwrap_or(0)
    }

    /// The word count of this width.
    fn n_words(&self) -> usize {
        words_for(self.width)
    }

    /// Whether bit `i` is set (false past the width).
    #[inline]
    pub fn bit(&self, i: u64) -> bool {
        if i >= self.width as u64 {
            return false;
        }
        (self.word((i / 64) as usize) >> (i % 64)) & 1 == 1
    }

    /// The top bit: the sign of a signed view.
    #[inline]
    pub fn sign_bit(&self) -> bool {
        self.bit(self.width as u64 - 1)
    }

    /// Zero-extends or truncates to `width`.
    #[inline]
    pub fn zext(&self, width: u32) -> Bits {
        Bits::from_words(width, self.words())
    }

    /// Sign-extends (from this value's top bit) or truncates to `width`.
    pub fn sext(&self, width: u32) -> Bits {
        if width <= self.width || !self.sign_bit() {
            return self.zext(width);
        }
        if width <= 64 {
            let w = self.width;
            let v = self.low_u64() | (u64::MAX << w);
            return Bits::from_u64(width, v);
        }
        let n = words_for(width);
        let mut words = vec![u64::MAX; n];
        let full = (self.width / 64) as usize;
        words[..full].copy_from_slice(&self.words()[..full]);
        let rem = self.width % 64;
        if rem != 0 {
            words[full] = self.word(full) | (u64::MAX << rem);
        }
        Bits::from_words(width, &words)
    }

    /// Resizes: sign-extends when `signed`, else zero-extends; truncates when narrower.
    pub fn resize(&self, width: u32, signed: bool) -> Bits {
        if signed {
            self.sext(width)
        } else {
            self.zext(width)
        }
    }

    /// The value as a signed 64-bit number (sign-extended from the width, low 64 bits).
    pub fn as_i64(&self) -> i64 {
        self.sext(64).low_u64() as i64
    }

    /// The value as a signed 128-bit number (sign-extended from the width, low 128 bits).
    pub fn as_i128(&self) -> i128 {
        self.sext(128).low_u128() as i128
    }

    /// Wrapping addition (same widths).
    pub fn add(&self, o: &Bits) -> Bits {
        if self.width <= 64 {
            return Bits::from_u64(self.width, self.low_u64().wrapping_add(o.low_u64()));
        }
        let mut carry = 0u64;
        Bits::map_words(self.width, self.n_words(), |i| {
            let (s1, c1) = self.word(i).overflowing_add(o.word(i));
            let (s2, c2) = s1.overflowing_add(carry);
            carry = (c1 as u64) + (c2 as u64);
            s2
        })
    }

    /// Two's-complement negation.
    pub fn neg(&self) -> Bits {
        self.not().add(&Bits::from_u64(self.width, 1))
    }

    /// Wrapping subtraction.
    pub fn sub(&self, o: &Bits) -> Bits {
        if self.width <= 64 {
            return Bits::from_u64(self.width, self.low_u64().wrapping_sub(o.low_u64()));
        }
        self.add(&o.neg())
    }

    /// Wrapping multiplication.
    pub fn mul(&self, o: &Bits) -> Bits {
        if self.width <= 64 {
            return Bits::from_u64(self.width, self.low_u64().wrapping_mul(o.low_u64()));
        }
        let n = self.n_words();
        let mut out = vec![0u64; n];
        for i in 0..n {
            let mut carry = 0u128;
            let a = self.word(i) as u128;
            if a == 0 {
                continue;
            }
            for j in 0..n - i {
                let cur = out[i + j] as u128 + a * o.word(j) as u128 + carry;
                out[i + j] = cur as u64;
                carry = cur >> 64;
            }
        }
        Bits::from_words(self.width, &out)
    }

    /// Bitwise complement.
    pub fn not(&self) -> Bits {
        Bits::map_words(self.width, self.n_words(), |i| !self.word(i))
    }

    /// Bitwise and.
    pub fn and(&self, o: &Bits) -> Bits {
        Bits::map_words(self.width, self.n_words(), |i| self.word(i) & o.word(i))
    }

    /// Bitwise or.
    pub fn or(&self, o: &Bits) -> Bits {
        Bits::map_words(self.width, self.n_words(), |i| self.word(i) | o.word(i))
    }

    /// Bitwise xor.
    pub fn xor(&self, o: &Bits) -> Bits {
        Bits::map_words(self.width, self.n_words(), |i| self.word(i) ^ o.word(i))
    }

    /// Shift left by `n` bits (zero past the width).
    pub fn shl(&self, n: u64) -> Bits {
        if n >= self.width as u64 {
            return Bits::zero(self.width);
        }
        if self.width <= 64 {
            return Bits::from_u64(self.width, self.low_u64() << n);
        }
        let (ws, bs) = ((n / 64) as usize, (n % 64) as u32);
        Bits::map_words(self.width, self.n_words(), |i| {
            if i < ws {
                return 0;
            }
            let lo = self.word(i - ws);
            let carry = if bs != 0 && i > ws {
                self.word(i - ws - 1) >> (64 - bs)
            } else {
                0
            };
            (lo << bs) | carry
        })
    }

    /// Logical shift right by `n` bits.
    pub fn lshr(&self, n: u64) -> Bits {
        if n >= self.width as u64 {
            return Bits::zero(self.width);
        }
        if self.width <= 64 {
            return Bits::from_u64(self.width, self.low_u64() >> n);
        }
        let (ws, bs) = ((n / 64) as usize, (n % 64) as u32);
        Bits::map_words(self.width, self.n_words(), |i| {
            let hi = self.word(i + ws);
            let carry = if bs != 0 {
                self.word(i + ws + 1) << (64 - bs)
            } else {
                0
            };
            (hi >> bs) | carry
        })
    }

    /// Arithmetic shift right by `n` bits (fills with the sign bit).
    pub fn ashr(&self, n: u64) -> Bits {
        if !self.sign_bit() {
            return self.lshr(n);
        }
        let n = n.min(self.width as u64);
        let shifted = self.lshr(n);
        if n == 0 {
            return shifted;
        }
        // Set the top n bits.
        let ones = Bits::zero(self.width).not();
        let fill = ones.shl(self.width as u64 - n);
        shifted.or(&fill)
    }

    /// Unsigned comparison.
    pub fn ucmp(&self, o: &Bits) -> std::cmp::Ordering {
        if self.width <= 64 && o.width <= 64 {
            return self.low_u64().cmp(&o.low_u64());
        }
        let n = self.n_words().max(o.n_words());
        for i in (0..n).rev() {
            match self.word(i).cmp(&o.word(i)) {
                std::cmp::Ordering::Equal => continue,
                other => return other,
            }
        }
        std::cmp::Ordering::Equal
    }

    /// Signed comparison of two values of the same width.
    pub fn scmp(&self, o: &Bits) -> std::cmp::Ordering {
        match (self.sign_bit(), o.sign_bit()) {
            (true, false) => std::cmp::Ordering::Less,
            (false, true) => std::cmp::Ordering::Greater,
            _ => self.ucmp(o),
        }
    }

    /// Unsigned division and remainder; `None` when dividing by zero.
    pub fn udivrem(&self, o: &Bits) -> Option<(Bits, Bits)> {
        if o.is_zero() {
            return None;
        }
        if self.width <= 64 {
            let (a, b) = (self.low_u64(), o.low_u64());
            return Some((
                Bits::from_u64(self.width, a / b),
                Bits::from_u64(self.width, a % b),
            ));
        }
        if self.width <= 128 {
            let (a, b) = (self.low_u128(), o.low_u128());
            return Some((
                Bits::from_u128(self.width, a / b),
                Bits::from_u128(self.width, a % b),
            ));
        }
        // Shift-subtract long division for the rare wide case.
        let mut q = Bits::zero(self.width);
        let mut r = Bits::zero(self.width);
        for i in (0..self.width as u64).rev() {
            r = r.shl(1);
            if self.bit(i) {
                r = r.or(&Bits::from_u64(self.width, 1));
            }
            if r.ucmp(o) != std::cmp::Ordering::Less {
                r = r.sub(o);
                q = q.or(&Bits::from_u64(self.width, 1).shl(i));
            }
        }
        Some((q, r))
    }

    /// Signed (truncating) division and remainder; `None` when dividing by zero.
    pub fn sdivrem(&self, o: &Bits) -> Option<(Bits, Bits)> {
        let (na, nb) = (self.sign_bit(), o.sign_bit());
        let a = if na { self.neg() } else { self.clone() };
        let b = if nb { o.neg() } else { o.clone() };
        let (q, r) = a.udivrem(&b)?;
        let q = if na != nb { q.neg() } else { q };
        let r = if na { r.neg() } else { r };
        Some((q, r))
    }

    /// `width` bits starting at bit `lo` (bits past the top read as zero).
    pub fn extract(&self, lo: u64, width: u32) -> Bits {
        if lo >= self.width as u64 {
            return Bits::zero(width);
        }
        if self.width <= 64 {
            return Bits::from_u64(width, self.low_u64() >> lo);
        }
        self.lshr(lo).zext(width)
    }

    /// This value with `width` bits at `lo` replaced by the low bits of `v` (bits past the
    /// top are dropped).
    pub fn insert(&self, lo: u64, width: u32, v: &Bits) -> Bits {
        if lo >= self.width as u64 {
            return self.clone();
        }
        if self.width <= 64 {
            let m = mask64(width) << lo;
            let nv = (self.low_u64() & !m) | ((v.low_u64() << lo) & m);
            return Bits::from_u64(self.width, nv);
        }
        let field = Bits::zero(self.width)
            .not()
            .lshr(self.width as u64 - width.min(self.width) as u64);
        let mask = field.shl(lo);
        let placed = v.zext(self.width).and(&field).shl(lo);
        self.and(&mask.not()).or(&placed)
    }

    /// The bits in reverse order.
    pub fn reverse(&self) -> Bits {
        if self.width <= 64 {
            return Bits::from_u64(
                self.width,
                self.low_u64().reverse_bits() >> (64 - self.width),
            );
        }
        let mut out = Bits::zero(self.width);
        for i in 0..self.width as u64 {
            if self.bit(i) {
                out = out.or(&Bits::from_u64(self.width, 1).shl(self.width as u64 - 1 - i));
            }
        }
        out
    }

    /// Concatenates `parts`, the first most significant.
    pub fn concat(parts: &[Bits]) -> Bits {
        let width: u32 = parts.iter().map(|p| p.width).sum();
        if width <= 64 {
            let mut v = 0u64;
            for p in parts {
                v = if p.width >= 64 { 0 } else { v << p.width } | p.low_u64();
            }
            return Bits::from_u64(width, v);
        }
        let mut out = Bits::zero(width);
        let mut pos = width as u64;
        for p in parts {
            pos -= p.width as u64;
            out = out.insert(pos, p.width, p);
        }
        out
    }

    /// The number of set bits.
    pub fn count_ones(&self) -> u32 {
        self.words().iter().map(|w| w.count_ones()).sum()
    }

    /// The index of the lowest set bit.
    pub fn trailing_zeros(&self) -> Option<u32> {
        for (i, w) in self.words().iter().enumerate() {
            if *w != 0 {
                return Some(i as u32 * 64 + w.trailing_zeros());
            }
        }
        None
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
    fn arithmetic_matches_u128_reference() {
        let vals: [u128; 6] = [
            0,
            1,
            0xffff_ffff_ffff_ffff,
            1 << 64,
            u128::MAX,
            0x1234_5678_9abc_def0_1122_3344_5566_7788,
        ];
        for &a in &vals {
            for &b in &vals {
                let (x, y) = (Bits::from_u128(128, a), Bits::from_u128(128, b));
                assert_eq!(x.add(&y).low_u128(), a.wrapping_add(b));
                assert_eq!(x.sub(&y).low_u128(), a.wrapping_sub(b));
                assert_eq!(x.mul(&y).low_u128(), a.wrapping_mul(b));
                assert_eq!(x.ucmp(&y), a.cmp(&b));
                if let (Some(q), Some(r)) = (a.checked_div(b), a.checked_rem(b)) {
                    let (bq, br) = x.udivrem(&y).expect("nonzero");
                    assert_eq!((bq.low_u128(), br.low_u128()), (q, r));
                }
                for n in [0u64, 1, 63, 64, 65, 127, 128] {
                    let want_shl = if n >= 128 { 0 } else { a << n };
                    let want_shr = if n >= 128 { 0 } else { a >> n };
                    assert_eq!(x.shl(n).low_u128(), want_shl, "shl {a:x} {n}");
                    assert_eq!(x.lshr(n).low_u128(), want_shr, "lshr {a:x} {n}");
                    let want_ashr = if n >= 128 {
                        if (a as i128) < 0 {
                            u128::MAX
                        } else {
                            0
                        }
                    } else {
                        ((a as i128) >> n) as u128
                    };
                    assert_eq!(x.ashr(n).low_u128(), want_ashr, "ashr {a:x} {n}");
                }
            }
        }
    }

    #[test]
    fn slices_and_concat() {
        let x = Bits::from_u64(32, 0x1234_5678);
        assert_eq!(x.extract(8, 8).low_u64(), 0x56);
        assert_eq!(
            x.insert(8, 8, &Bits::from_u64(8, 0xab)).low_u64(),
            0x1234_ab78
        );
        assert_eq!(x.reverse().low_u64(), 0x1e6a_2c48);
        let wide = Bits::concat(&[Bits::from_u64(64, 0xaaaa), Bits::from_u64(64, 0xbbbb)]);
        assert_eq!(wide.width(), 128);
        assert_eq!(wide.low_u128(), (0xaaaa << 64) | 0xbbbb);
        assert_eq!(wide.extract(60, 8).low_u64(), 0xa0);
        assert_eq!(Bits::from_u64(8, 0x80).sext(16).low_u64(), 0xff80);
        assert_eq!(Bits::from_u64(8, 0x80).sext(130).as_i128(), -128);
        let v = Bits::from_u64(70, 5).insert(66, 4, &Bits::from_u64(4, 0xf));
        assert_eq!(v.low_u128(), (0xf << 66) | 5);
        assert_eq!(Bits::from_u64(6, 0x3f).shl(1).low_u64(), 0x3e);
        let (q, r) = Bits::from_u64(32, (-7i32) as u32 as u64)
            .sdivrem(&Bits::from_u64(32, 2))
            .expect("nonzero");
        assert_eq!(
            (q.low_u64() as u32 as i32, r.low_u64() as u32 as i32),
            (-3, -1)
        );
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
