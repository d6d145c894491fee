//! The arithmetic of change ticks, below everything that stores them: how
//! old a tick may get ([`MAX_AGE`]), how two are ordered ([`later`],
//! [`is_after`]), and a reader's window ([`ChangeWindow`]). The rules they
//! serve are in [`crate::change`].

/// Ticks older than this (relative to the world's) are clamped to it.
pub(crate) const MAX_AGE: u32 = 1 << 30;
/// How far the world's tick may advance between two clamping sweeps.
pub(crate) const SWEEP_INTERVAL: u32 = 1 << 29;

/// Of two ticks a world holds, the later one. Every stored tick is at most
/// `MAX_AGE + SWEEP_INTERVAL` (3·2²⁹) old, so any two are less than 2³¹
/// apart and their wrapping difference, read as signed, orders them.
#[inline(always)]
pub(crate) fn later(a: u32, b: u32) -> u32 {
    if (b.wrapping_sub(a) as i32) > 0 {
        b
    } else {
        a
    }
}

/// What one reader sees: changes stamped after `last_run`, up to `this_run`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[doc(hidden)]
pub struct ChangeWindow {
    pub(crate) last_run: u32,
    pub(crate) this_run: u32,
}

impl ChangeWindow {
    /// A reader that has never run: everything not yet forgotten is new.
    pub(crate) fn first(this_run: u32) -> Self {
        // The oldest possible last run: every tick but one after `this_run`
        // is in the window, however old.
        ChangeWindow {
            last_run: this_run.wrapping_add(1),
            this_run,
        }
    }

    /// Whether this is the window of a reader's first run
    /// ([`ChangeWindow::first`]).
    pub(crate) fn is_first(self) -> bool {
        self.last_run == self.this_run.wrapping_add(1)
    }

    /// Whether `tick` falls in the window: after `last_run`, not after
    /// `this_run`.
    #[inline(always)]
    pub(crate) fn contains(self, tick: u32) -> bool {
        self.this_run.wrapping_sub(tick) < self.this_run.wrapping_sub(self.last_run)
    }
}

/// Clamps `tick` to at most [`MAX_AGE`] older than `now`.
#[inline]
pub(crate) fn clamp(tick: &mut u32, now: u32) {
    if now.wrapping_sub(*tick) > MAX_AGE {
        *tick = now.wrapping_sub(MAX_AGE);
    }
}

/// Whether `tick` comes after `now`, as ticks that wrap go (within half the
/// counter's range of it): what no tick of a world may, in a save being
/// loaded.
pub(crate) fn is_after(tick: u32, now: u32) -> bool {
    now.wrapping_sub(tick) >= 1 << 31
}
