//! Deterministic sampling for benchmarks: a seeded xorshift (both sides of a comparison get the
//! same keys), Zipf ranks (the tiered-storage memo's skewed access) and percentiles.

/// A seeded xorshift64 generator.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A uniform float in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A uniform index below `n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// Shuffles `v` in place (Fisher-Yates).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
}

/// Zipf(alpha) ranks over `n` items, by inverting the cumulative weights.
pub struct Zipf(Vec<f64>);

impl Zipf {
    /// The distribution over ranks `0..n`.
    pub fn new(n: usize, alpha: f64) -> Zipf {
        let mut c = Vec::with_capacity(n);
        let mut s = 0.0;
        for k in 1..=n {
            s += 1.0 / (k as f64).powf(alpha);
            c.push(s);
        }
        Zipf(c.into_iter().map(|x| x / s).collect())
    }

    /// A rank.
    pub fn sample(&self, r: &mut Rng) -> usize {
        let u = r.unit();
        self.0.partition_point(|&x| x < u).min(self.0.len().saturating_sub(1))
    }

    /// How many of the top ranks it takes to cover `share` of the draws.
    pub fn ranks_covering(&self, share: f64) -> usize {
        self.0.partition_point(|&x| x < share) + 1
    }
}

/// The `p` quantile (0..=1) of `v`, nearest rank; sorts `v`.
pub fn percentile(v: &mut [f64], p: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}
