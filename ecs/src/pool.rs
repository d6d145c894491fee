//! The thread pool, or its absence: the one module that knows whether the
//! `parallel` feature (rayon) is on.
//!
//! Without it, every parallel form runs its pieces on the calling thread, one
//! after another in their order. The callers never depend on which: pieces
//! touch disjoint data, and whatever they produce is put back in piece order.

/// The threads a parallel call may spread over: rayon's pool (the current
/// one, inside `ThreadPool::install`), or 1 without the feature.
pub(crate) fn current_num_threads() -> usize {
    #[cfg(feature = "parallel")]
    {
        rayon::current_num_threads()
    }
    #[cfg(not(feature = "parallel"))]
    {
        1
    }
}

/// Calls `f` with each of `items`, on the pool; in order without it.
pub(crate) fn for_each<T: Send>(items: Vec<T>, f: impl Fn(T) + Send + Sync) {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        items.into_par_iter().for_each(f);
    }
    #[cfg(not(feature = "parallel"))]
    {
        items.into_iter().for_each(f);
    }
}

/// Calls `run` once with each of some pieces that together cover `whole`,
/// a piece of `len` rows out of `total` rows being run at once, and their
/// lengths. On the pool the pieces are cut with `split(piece, mid)` (rows
/// `..mid` and `mid..`) the way rayon cuts an indexed parallel iterator: in
/// halves, as many times at first as it takes to give each thread its share
/// of `total` rows, and again each time a half is stolen by an idle thread,
/// so that uneven work balances down to single rows while work spread
/// evenly costs a few cuts. A piece smaller than a thread's share is not cut
/// unless stolen: spreading the pieces is the caller's part. Without the
/// pool, `run(whole, len)`.
pub(crate) fn split_for_each<P: Send>(
    whole: P,
    len: usize,
    total: usize,
    split: &(impl Fn(P, usize) -> (P, P) + Sync),
    run: &(impl Fn(P, usize) + Sync),
) {
    #[cfg(feature = "parallel")]
    {
        let cuts = rayon::current_num_threads() * len / total.max(1);
        split_halves(whole, len, cuts, false, split, run);
    }
    #[cfg(not(feature = "parallel"))]
    {
        let _ = (split, total);
        run(whole, len);
    }
}

/// One step of [`split_for_each`]: `cuts` is how many more times this piece
/// may be halved unless it is stolen (which renews it).
#[cfg(feature = "parallel")]
fn split_halves<P: Send>(
    piece: P,
    len: usize,
    mut cuts: usize,
    stolen: bool,
    split: &(impl Fn(P, usize) -> (P, P) + Sync),
    run: &(impl Fn(P, usize) + Sync),
) {
    let cut = if stolen {
        cuts = (cuts / 2).max(rayon::current_num_threads());
        true
    } else if cuts > 0 {
        cuts /= 2;
        true
    } else {
        false
    };
    if cut && len >= 2 {
        let mid = len / 2;
        let (head, tail) = split(piece, mid);
        rayon::join_context(
            |context| split_halves(head, mid, cuts, context.migrated(), split, run),
            |context| split_halves(tail, len - mid, cuts, context.migrated(), split, run),
        );
    } else {
        run(piece, len);
    }
}

/// `f` of each of `items`, in the items' order; computed on the pool, or in
/// order without it.
pub(crate) fn map<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Send + Sync) -> Vec<R> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        items.into_par_iter().map(f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        items.into_iter().map(f).collect()
    }
}

/// Runs `work` on the calling thread and on `helpers` pool threads at once,
/// and returns when every call has returned. Without the pool, `work` runs
/// once, here: it must get everything done alone (the executor's `work`
/// takes systems from a queue until none is left).
pub(crate) fn with_helpers(helpers: usize, work: impl Fn() + Sync) {
    #[cfg(feature = "parallel")]
    {
        let work = &work;
        rayon::in_place_scope(|scope| {
            for _ in 0..helpers {
                scope.spawn(move |_| work());
            }
            work();
        });
    }
    #[cfg(not(feature = "parallel"))]
    {
        let _ = helpers;
        work();
    }
}
