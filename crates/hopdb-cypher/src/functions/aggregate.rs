//! The aggregating functions: `count`, `sum`, `avg`, `min`, `max`, `collect`,
//! `percentileCont`, `percentileDisc`, `stDev`, `stDevP`, each optionally DISTINCT.

use super::{arg_range_error, arg_type_error, Aggregator};
use crate::compare::{order, GroupKey};
use crate::error::{CypherError, Result};
use crate::temporal;
use crate::value::Value;
use std::cmp::Ordering;
use std::collections::HashSet;

pub(super) fn new(name: &str, distinct: bool, count_star: bool) -> Option<Box<dyn Aggregator>> {
    let inner: Box<dyn Aggregator> = match name {
        "count" if count_star => return Some(Box::new(CountStar(0))),
        "count" => Box::new(Count(0)),
        "sum" => Box::new(Sum::new(false)),
        "avg" => Box::new(Sum::new(true)),
        "min" => Box::new(Extreme {
            best: None,
            keep: Ordering::Less,
        }),
        "max" => Box::new(Extreme {
            best: None,
            keep: Ordering::Greater,
        }),
        "collect" => Box::new(Collect(Vec::new())),
        "percentilecont" => Box::new(Percentile::new(true)),
        "percentiledisc" => Box::new(Percentile::new(false)),
        "stdev" => Box::new(StDev::new(true)),
        "stdevp" => Box::new(StDev::new(false)),
        _ => return None,
    };
    Some(if distinct {
        Box::new(Distinct {
            seen: HashSet::new(),
            inner,
        })
    } else {
        inner
    })
}

/// The first argument (null when absent).
fn first(args: &[Value]) -> &Value {
    super::arg(args, 0)
}

/// DISTINCT: passes on only the first occurrence of each non-null value (by grouping
/// equivalence of the first argument).
struct Distinct {
    seen: HashSet<GroupKey>,
    inner: Box<dyn Aggregator>,
}

impl Aggregator for Distinct {
    fn update(&mut self, args: &[Value]) -> Result<()> {
        let v = first(args);
        if v.is_null() || !self.seen.insert(GroupKey(v.clone())) {
            return Ok(());
        }
        self.inner.update(args)
    }
    fn finish(&mut self) -> Result<Value> {
        self.inner.finish()
    }
}

/// `count(*)`: rows.
struct CountStar(i64);

impl Aggregator for CountStar {
    fn update(&mut self, _args: &[Value]) -> Result<()> {
        self.0 += 1;
        Ok(())
    }
    fn finish(&mut self) -> Result<Value> {
        Ok(Value::Int(self.0))
    }
}

/// `count(x)`: non-null values.
struct Count(i64);

impl Aggregator for Count {
    fn update(&mut self, args: &[Value]) -> Result<()> {
        if !first(args).is_null() {
            self.0 += 1;
        }
        Ok(())
    }
    fn finish(&mut self) -> Result<Value> {
        Ok(Value::Int(self.0))
    }
}

/// `sum(x)` and `avg(x)`: numbers (integers stay integers in `sum` unless a float shows up)
/// or durations (through the temporal module), not both.
struct Sum {
    avg: bool,
    count: i64,
    ints: i128,
    floats: f64,
    saw_float: bool,
    duration: Option<Value>,
}

impl Sum {
    fn new(avg: bool) -> Sum {
        Sum {
            avg,
            count: 0,
            ints: 0,
            floats: 0.0,
            saw_float: false,
            duration: None,
        }
    }
    fn name(&self) -> &'static str {
        if self.avg {
            "avg"
        } else {
            "sum"
        }
    }
}

impl Aggregator for Sum {
    fn update(&mut self, args: &[Value]) -> Result<()> {
        let v = first(args);
        let numeric_seen = self.count > 0 && self.duration.is_none();
        match v {
            Value::Null => return Ok(()),
            Value::Int(i) if self.duration.is_none() => self.ints += i128::from(*i),
            Value::Float(f) if self.duration.is_none() => {
                self.floats += f;
                self.saw_float = true;
            }
            Value::Duration(_) if !numeric_seen => {
                self.duration = Some(match self.duration.take() {
                    None => v.clone(),
                    Some(acc) => temporal::add(&acc, v)
                        .unwrap_or_else(|| Err(arg_type_error(self.name(), "numbers or durations", v)))?,
                });
            }
            v => return Err(arg_type_error(self.name(), "numbers or durations (not mixed)", v)),
        }
        self.count += 1;
        Ok(())
    }

    fn finish(&mut self) -> Result<Value> {
        if let Some(d) = &self.duration {
            if !self.avg {
                return Ok(d.clone());
            }
            return temporal::mul_div(d, &Value::Int(self.count), true)
                .unwrap_or_else(|| Err(CypherError::type_error("avg() cannot divide a duration")));
        }
        if self.avg {
            if self.count == 0 {
                return Ok(Value::Null);
            }
            return Ok(Value::Float((self.ints as f64 + self.floats) / self.count as f64));
        }
        if self.saw_float {
            return Ok(Value::Float(self.ints as f64 + self.floats));
        }
        i64::try_from(self.ints).map(Value::Int).map_err(|_| {
            CypherError::argument(
                "NumberOutOfRange",
                format!("sum() overflows a 64-bit integer: {}", self.ints),
            )
        })
    }
}

/// `min(x)` / `max(x)` under the global sort order (mixed types allowed), nulls skipped.
struct Extreme {
    best: Option<Value>,
    /// `Less` for min, `Greater` for max.
    keep: Ordering,
}

impl Aggregator for Extreme {
    fn update(&mut self, args: &[Value]) -> Result<()> {
        let v = first(args);
        if v.is_null() {
            return Ok(());
        }
        let replace = match &self.best {
            None => true,
            Some(b) => order(v, b) == self.keep,
        };
        if replace {
            self.best = Some(v.clone());
        }
        Ok(())
    }
    fn finish(&mut self) -> Result<Value> {
        Ok(self.best.clone().unwrap_or(Value::Null))
    }
}

/// `collect(x)`: non-null values in arrival order.
struct Collect(Vec<Value>);

impl Aggregator for Collect {
    fn update(&mut self, args: &[Value]) -> Result<()> {
        let v = first(args);
        if !v.is_null() {
            self.0.push(v.clone());
        }
        Ok(())
    }
    fn finish(&mut self) -> Result<Value> {
        Ok(Value::List(self.0.clone()))
    }
}

/// `percentileCont(x, p)` (interpolated, a float) and `percentileDisc(x, p)` (a value of the
/// group); `p` must be a number in `[0, 1]`.
struct Percentile {
    cont: bool,
    values: Vec<Value>,
    p: Option<f64>,
}

impl Percentile {
    fn new(cont: bool) -> Percentile {
        Percentile {
            cont,
            values: Vec::new(),
            p: None,
        }
    }
    fn name(&self) -> &'static str {
        if self.cont {
            "percentileCont"
        } else {
            "percentileDisc"
        }
    }
}

fn to_f64(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        _ => f64::NAN,
    }
}

impl Aggregator for Percentile {
    fn update(&mut self, args: &[Value]) -> Result<()> {
        let p = super::arg(args, 1);
        match p {
            Value::Null => {}
            Value::Int(_) | Value::Float(_) => {
                let pf = to_f64(p);
                if !(0.0..=1.0).contains(&pf) {
                    return Err(arg_range_error(
                        self.name(),
                        format!(
                            "the percentile must be between 0.0 and 1.0, got {}",
                            super::format_float(pf)
                        ),
                    ));
                }
                self.p.get_or_insert(pf);
            }
            v => return Err(arg_type_error(self.name(), "a number percentile", v)),
        }
        match first(args) {
            Value::Null => {}
            v @ (Value::Int(_) | Value::Float(_)) => self.values.push(v.clone()),
            v => return Err(arg_type_error(self.name(), "numbers", v)),
        }
        Ok(())
    }

    fn finish(&mut self) -> Result<Value> {
        let (Some(p), false) = (self.p, self.values.is_empty()) else {
            return Ok(Value::Null);
        };
        self.values.sort_by(order);
        let n = self.values.len();
        if self.cont {
            let idx = p * (n - 1) as f64;
            let lo = idx.floor();
            let hi = idx.ceil();
            let (lo_i, hi_i) = (lo as usize, hi as usize);
            let at = |i: usize| self.values.get(i).map_or(f64::NAN, to_f64);
            if lo_i == hi_i || lo_i >= n - 1 {
                return Ok(Value::Float(at(lo_i.min(n - 1))));
            }
            Ok(Value::Float(at(lo_i) * (hi - idx) + at(hi_i) * (idx - lo)))
        } else {
            let idx = if p >= 1.0 || n == 1 {
                n - 1
            } else {
                ((p * n as f64).ceil() as usize).saturating_sub(1).min(n - 1)
            };
            Ok(self.values.get(idx).cloned().unwrap_or(Value::Null))
        }
    }
}

/// `stDev(x)` (sample) and `stDevP(x)` (population), by Welford's method; 0.0 over fewer
/// than two values.
struct StDev {
    sample: bool,
    n: u64,
    mean: f64,
    m2: f64,
}

impl StDev {
    fn new(sample: bool) -> StDev {
        StDev {
            sample,
            n: 0,
            mean: 0.0,
            m2: 0.0,
        }
    }
}

impl Aggregator for StDev {
    fn update(&mut self, args: &[Value]) -> Result<()> {
        let x = match first(args) {
            Value::Null => return Ok(()),
            Value::Int(i) => *i as f64,
            Value::Float(f) => *f,
            v => {
                return Err(arg_type_error(
                    if self.sample { "stDev" } else { "stDevP" },
                    "numbers",
                    v,
                ))
            }
        };
        self.n += 1;
        let delta = x - self.mean;
        self.mean += delta / self.n as f64;
        self.m2 += delta * (x - self.mean);
        Ok(())
    }
    fn finish(&mut self) -> Result<Value> {
        let denom = if self.sample { self.n.saturating_sub(1) } else { self.n };
        if self.n < 2 || denom == 0 {
            return Ok(Value::Float(0.0));
        }
        Ok(Value::Float((self.m2 / denom as f64).sqrt()))
    }
}
