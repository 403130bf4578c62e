//! Order-keeping parallel map on scoped threads, for `breakbench merge`
//! (REQ-SCALE-MERGE): the shards are read and checked side by side, and
//! the results come back in the order of the inputs, so what is written
//! does not depend on the threads' timing.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Threads for I/O-bound work: twice the available parallelism (a thread
/// waiting on a read leaves its core to another), at least 2, at most 16.
pub fn io_threads() -> usize {
    std::thread::available_parallelism()
        .map_or(2, |n| n.get() * 2)
        .clamp(2, 16)
}

/// `f` applied to every item of `items` on up to `threads` scoped threads;
/// the results in the order of `items`.
pub fn par_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        out.push((i, f(item)));
                    }
                    out
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a merge thread panicked"))
            .collect()
    });
    done.sort_unstable_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::par_map;

    #[test]
    fn results_come_back_in_input_order() {
        let items: Vec<u64> = (0..1000).collect();
        for threads in [1, 2, 7] {
            let got = par_map(&items, threads, |x| x * x);
            assert_eq!(got, items.iter().map(|x| x * x).collect::<Vec<_>>());
        }
        assert!(par_map(&[] as &[u8], 4, |x| *x).is_empty());
    }
}
