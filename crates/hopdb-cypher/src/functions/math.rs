//! Numeric functions: `abs`, `ceil`, `floor`, `round` (with precision and rounding mode),
//! `sign`, `sqrt`, `exp`, `log`, `log10`, trigonometry, `e`, `pi`, `rand`, `isNaN`, plus
//! `timestamp()` and `randomUUID()`.

use super::{arg, arg_type_error};
use crate::error::{CypherError, Result};
use crate::value::Value;
use std::hash::{BuildHasher, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

pub(super) fn call(name: &str, args: &[Value]) -> Option<Result<Value>> {
    let x = arg(args, 0);
    Some(match name {
        "abs" => match x {
            Value::Null => Ok(Value::Null),
            Value::Int(i) => i.checked_abs().map(Value::Int).ok_or_else(|| {
                CypherError::argument("NumberOutOfRange", format!("abs({i}) does not fit in a 64-bit integer"))
            }),
            Value::Float(f) => Ok(Value::Float(f.abs())),
            v => Err(arg_type_error(name, "a number", v)),
        },
        "sign" => match x {
            Value::Null => Ok(Value::Null),
            Value::Int(i) => Ok(Value::Int(i.signum())),
            Value::Float(f) => Ok(Value::Int(if *f > 0.0 {
                1
            } else if *f < 0.0 {
                -1
            } else {
                0
            })),
            v => Err(arg_type_error(name, "a number", v)),
        },
        "isnan" => match x {
            Value::Null => Ok(Value::Null),
            Value::Int(_) => Ok(Value::Bool(false)),
            Value::Float(f) => Ok(Value::Bool(f.is_nan())),
            v => Err(arg_type_error(name, "a number", v)),
        },
        "round" => round(args),
        "e" => Ok(Value::Float(std::f64::consts::E)),
        "pi" => Ok(Value::Float(std::f64::consts::PI)),
        "rand" => Ok(Value::Float(random_f64())),
        "timestamp" => Ok(Value::Int(now_millis())),
        "randomuuid" => Ok(Value::String(random_uuid())),
        "atan2" => match (num(name, x), num(name, arg(args, 1))) {
            (Err(e), _) | (_, Err(e)) => Err(e),
            (Ok(Some(y)), Ok(Some(x))) => Ok(Value::Float(y.atan2(x))),
            _ => Ok(Value::Null),
        },
        _ => {
            let f: fn(f64) -> f64 = match name {
                "ceil" => f64::ceil,
                "floor" => f64::floor,
                "sqrt" => f64::sqrt,
                "exp" => f64::exp,
                "log" => f64::ln,
                "log10" => f64::log10,
                "sin" => f64::sin,
                "cos" => f64::cos,
                "tan" => f64::tan,
                "asin" => f64::asin,
                "acos" => f64::acos,
                "atan" => f64::atan,
                "cot" => |x: f64| 1.0 / x.tan(),
                "sinh" => f64::sinh,
                "cosh" => f64::cosh,
                "tanh" => f64::tanh,
                "coth" => |x: f64| x.cosh() / x.sinh(),
                "degrees" => f64::to_degrees,
                "radians" => f64::to_radians,
                "haversin" => |x: f64| (1.0 - x.cos()) / 2.0,
                _ => return None,
            };
            num(name, x).map(|v| v.map_or(Value::Null, |v| Value::Float(f(v))))
        }
    })
}

/// A numeric argument as a float; `None` for null.
fn num(func: &str, v: &Value) -> Result<Option<f64>> {
    match v {
        Value::Null => Ok(None),
        Value::Int(i) => Ok(Some(*i as f64)),
        Value::Float(f) => Ok(Some(*f)),
        v => Err(arg_type_error(func, "a number", v)),
    }
}

/// Java's `Math.round` as a float: nearest integer, ties towards positive infinity.
pub(crate) fn round_half_ceiling(x: f64) -> f64 {
    if !x.is_finite() {
        return x;
    }
    let f = x.floor();
    if x - f >= 0.5 {
        f + 1.0
    } else {
        f
    }
}

/// The rounding modes of `round(x, precision, mode)` (Java's `RoundingMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Up,
    Down,
    Ceiling,
    Floor,
    HalfUp,
    HalfDown,
    HalfEven,
    Unnecessary,
}

fn round(args: &[Value]) -> Result<Value> {
    let Some(x) = num("round", arg(args, 0))? else {
        return Ok(Value::Null);
    };
    let precision = match args.get(1) {
        None => return Ok(Value::Float(round_half_ceiling(x))),
        Some(Value::Null) => return Ok(Value::Null),
        Some(Value::Int(p)) => *p,
        Some(v) => return Err(arg_type_error("round", "an INTEGER precision", v)),
    };
    let mode = match args.get(2) {
        None => {
            if precision == 0 {
                // Aligns with round(x): ties towards positive infinity.
                return Ok(Value::Float(round_half_ceiling(x)));
            }
            Mode::HalfUp
        }
        Some(Value::Null) => return Ok(Value::Null),
        Some(Value::String(m)) => match m.to_ascii_uppercase().as_str() {
            "UP" => Mode::Up,
            "DOWN" => Mode::Down,
            "CEILING" => Mode::Ceiling,
            "FLOOR" => Mode::Floor,
            "HALF_UP" => Mode::HalfUp,
            "HALF_DOWN" => Mode::HalfDown,
            "HALF_EVEN" => Mode::HalfEven,
            "UNNECESSARY" => Mode::Unnecessary,
            _ => {
                return Err(CypherError::argument(
                    "InvalidArgumentValue",
                    format!("round(): unknown rounding mode '{m}'"),
                ))
            }
        },
        Some(v) => return Err(arg_type_error("round", "a STRING rounding mode", v)),
    };
    decimal_round(x, precision, mode).map(Value::Float)
}

/// Rounds `x` to `precision` decimal places the way `BigDecimal.valueOf(x).setScale(precision,
/// mode)` does: on the shortest decimal form of `x` (so `round(2.675, 2)` is `2.68`).
fn decimal_round(x: f64, precision: i64, mode: Mode) -> Result<f64> {
    if !x.is_finite() || x == 0.0 {
        return Ok(x);
    }
    let negative = x < 0.0;
    // "d.ddddde-N": digits and the exponent of the first digit.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).map(|b| b - b'0').collect();
    // value = digits × 10^(exp - (len - 1)); `scale` = decimal places of that form.
    let scale = (digits.len() as i64 - 1) - exp;
    if scale <= precision {
        return Ok(x);
    }
    let drop = usize::try_from(scale - precision).unwrap_or(usize::MAX);
    let keep_len = digits.len().saturating_sub(drop);
    let mut kept: Vec<u8> = digits[..keep_len].to_vec();
    let discarded = &digits[keep_len..];
    // The first discarded digit is `discarded[0]` only when exactly `drop` digits were
    // dropped from the available ones; otherwise leading zeros precede them.
    let padded = drop > digits.len();
    let first = if padded {
        0
    } else {
        discarded.first().copied().unwrap_or(0)
    };
    let rest_nonzero = if padded {
        discarded.iter().any(|d| *d != 0)
    } else {
        discarded.iter().skip(1).any(|d| *d != 0)
    };
    let any_nonzero = first != 0 || rest_nonzero;
    let last_kept_odd = kept.last().is_some_and(|d| d % 2 == 1);
    let half_cmp = match first.cmp(&5) {
        std::cmp::Ordering::Equal if rest_nonzero => std::cmp::Ordering::Greater,
        o => o,
    };
    let away = match mode {
        Mode::Up => any_nonzero,
        Mode::Down => false,
        Mode::Ceiling => any_nonzero && !negative,
        Mode::Floor => any_nonzero && negative,
        Mode::HalfUp => half_cmp != std::cmp::Ordering::Less,
        Mode::HalfDown => half_cmp == std::cmp::Ordering::Greater,
        Mode::HalfEven => match half_cmp {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Equal => last_kept_odd,
            std::cmp::Ordering::Less => false,
        },
        Mode::Unnecessary => {
            if any_nonzero {
                return Err(CypherError::argument(
                    "InvalidArgumentValue",
                    format!("round(): rounding {x} to {precision} decimal places is necessary"),
                ));
            }
            false
        }
    };
    if away {
        // Add one unit in the last kept place, propagating the carry.
        let mut i = kept.len();
        loop {
            if i == 0 {
                kept.insert(0, 1);
                break;
            }
            i -= 1;
            if kept[i] == 9 {
                kept[i] = 0;
            } else {
                kept[i] += 1;
                break;
            }
        }
    }
    if kept.is_empty() {
        kept.push(0);
    }
    let text: String = kept.iter().map(|d| char::from(b'0' + d)).collect();
    let magnitude: f64 = format!("{text}e{}", -precision).parse().unwrap_or(0.0);
    Ok(if negative { -magnitude } else { magnitude })
}

fn now_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

/// 64 random bits: the standard library's randomly keyed hasher over a counter and the clock.
fn random_u64() -> u64 {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u64(COUNTER.fetch_add(1, Ordering::Relaxed));
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

/// A uniformly distributed float in `[0, 1)`.
fn random_f64() -> f64 {
    (random_u64() >> 11) as f64 / (1u64 << 53) as f64
}

/// A random (version 4) UUID in its canonical text form.
fn random_uuid() -> String {
    let hi = (random_u64() & !0xF000) | 0x4000; // version 4
    let lo = (random_u64() & !(0b11 << 62)) | (0b10 << 62); // variant 1
    format!(
        "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
        hi >> 32,
        (hi >> 16) & 0xFFFF,
        hi & 0xFFFF,
        lo >> 48,
        lo & 0xFFFF_FFFF_FFFF
    )
}
