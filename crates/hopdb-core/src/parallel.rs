//! Large batch reads split over two threads.
//!
//! A batch read by key costs about one cold block read per item, and a single caller leaves
//! the second core idle. Waking a pool thread costs tens of microseconds here, so only
//! batches with enough work are split (decision 0015).

/// Batches of at least this many point reads (multi-gets) are split: `Graph.nodes` and
/// `Graph.degrees` of random keys on the LightRAG-shaped store, medians of 21 alternated
/// samples, ran 1.17x faster split at 100 keys and 1.36x at 400, but 5-14% slower at 40.
pub(crate) const PARALLEL_BATCH_MIN: usize = 64;

/// Whether [`split_batch`] splits a batch of `len` items given `min` (a caller that must pin
/// a snapshot for the halves asks first).
pub(crate) fn splits(len: usize, min: usize) -> bool {
    len >= min.max(2) && rayon::current_num_threads() >= 2
}

/// `f` over `items`, in two halves on two threads when there are at least `min` items (the
/// caller takes the first half, a thread of rayon's pool the second), the results
/// concatenated in order. `f` must read one consistent state (a snapshot) for the halves to
/// agree.
pub fn split_batch<T, R, E>(items: &[T], min: usize, f: impl Fn(&[T]) -> Result<Vec<R>, E> + Sync) -> Result<Vec<R>, E>
where
    T: Sync,
    R: Send,
    E: Send,
{
    if !splits(items.len(), min) {
        return f(items);
    }
    let (a, b) = items.split_at(items.len() / 2);
    let mut second = None;
    let first = rayon::in_place_scope(|s| {
        s.spawn(|_| second = Some(f(b)));
        f(a)
    });
    let mut out = first?;
    // The scope returns only after its spawned task ran.
    if let Some(rest) = second {
        out.extend(rest?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn halves_come_back_in_order_and_errors_pass_through() {
        let items: Vec<u32> = (0..1000).collect();
        let got: Result<Vec<u32>, ()> =
            split_batch(&items, PARALLEL_BATCH_MIN, |xs| Ok(xs.iter().map(|x| x * 2).collect()));
        assert_eq!(got.unwrap(), items.iter().map(|x| x * 2).collect::<Vec<_>>());
        let failed: Result<Vec<u32>, String> = split_batch(&items, PARALLEL_BATCH_MIN, |xs| {
            if xs.contains(&999) {
                Err("late half".into())
            } else {
                Ok(xs.to_vec())
            }
        });
        assert_eq!(failed.unwrap_err(), "late half");
        let small: Result<Vec<u32>, ()> = split_batch(&items[..3], PARALLEL_BATCH_MIN, |xs| Ok(xs.to_vec()));
        assert_eq!(small.unwrap(), vec![0, 1, 2]);
    }
}
