//! Logs of checksums by part, one per peer, and their comparison: which
//! frame two peers first disagree on, and in which parts of the world.

use ggrs::Frame;
use schemecs::checksum::{ChecksumPart, ChecksumParts};
use std::collections::BTreeMap;
use std::fmt;

/// A peer's checksums by part ([`World::checksum_parts`]) for each
/// confirmed frame: write one per peer during a match
/// ([`DesyncLog::record`], or [`GgrsRunner::log_confirmed`] each frame),
/// then compare two ([`DesyncLog::first_mismatch`]) to learn the first
/// frame the peers disagree on and which components or resources differ,
/// without sending a world.
///
/// The text form ([`fmt::Display`], [`DesyncLog::parse`]) is one line per
/// frame and part: the frame, the part, and its 128-bit digest in hex:
///
/// ```text
/// 312 entities 6f0e...
/// 312 component:Vel 91ab...
/// 312 resource:Stats 03c4...
/// ```
///
/// A log holds every frame recorded, a few hundred bytes each (one name
/// and digest per part), until [`DesyncLog::keep_last`] drops the earliest:
/// for a long match, keep a window of recent frames (a desync shows within
/// GGRS's check interval and the prediction window of where it began), or
/// write the log out now and then and go on in a new one.
///
/// [`World::checksum_parts`]: schemecs::world::World::checksum_parts
/// [`GgrsRunner::log_confirmed`]: crate::GgrsRunner::log_confirmed
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DesyncLog {
    frames: BTreeMap<Frame, Vec<(String, u128)>>,
}

/// The first frame two [`DesyncLog`]s disagree on, and the parts that
/// differ there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogMismatch {
    /// The first frame both logs hold whose parts differ.
    pub frame: Frame,
    /// The parts that differ there, as the log names them
    /// (`component:Vel`, `resource:Stats`, `entities`, `changes`,
    /// `locals`), in log order.
    pub parts: Vec<String>,
}

impl fmt::Display for LogMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "frame {}: ", self.frame)?;
        for (i, part) in self.parts.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match part.split_once(':') {
                Some((kind, name)) => write!(f, "{kind} `{name}`")?,
                None => f.write_str(part)?,
            }
        }
        f.write_str(if self.parts.len() == 1 {
            " differs"
        } else {
            " differ"
        })
    }
}

/// Why a text is not a [`DesyncLog`]: the line (from 1) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogParseError {
    /// The line at fault, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

impl fmt::Display for LogParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.reason)
    }
}

impl std::error::Error for LogParseError {}

/// The name of `part` in a log: one word, no spaces.
fn part_key(part: ChecksumPart) -> String {
    match part {
        ChecksumPart::Entities => "entities".to_owned(),
        ChecksumPart::OfComponent(name) => format!("component:{}", name.replace(' ', "")),
        ChecksumPart::OfResource(name) => format!("resource:{}", name.replace(' ', "")),
        ChecksumPart::Changes => "changes".to_owned(),
        ChecksumPart::Locals => "locals".to_owned(),
    }
}

impl DesyncLog {
    /// An empty log.
    pub fn new() -> Self {
        DesyncLog::default()
    }

    /// Records `parts`, the checksums by part of the world at `frame`
    /// (replacing what was recorded for it).
    pub fn record(&mut self, frame: Frame, parts: &ChecksumParts) {
        let parts = parts
            .iter()
            .map(|(part, digest)| (part_key(part), digest))
            .collect();
        self.frames.insert(frame, parts);
    }

    /// Drops the earliest frames recorded, keeping the last `frames` of
    /// them (all of them if there are no more).
    pub fn keep_last(&mut self, frames: usize) {
        while self.frames.len() > frames {
            self.frames.pop_first();
        }
    }

    /// The number of frames recorded.
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether no frame is recorded.
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }

    /// The frames recorded, in order.
    pub fn frames(&self) -> impl Iterator<Item = Frame> + '_ {
        self.frames.keys().copied()
    }

    /// The last frame recorded.
    pub fn last_frame(&self) -> Option<Frame> {
        self.frames.keys().next_back().copied()
    }

    /// The first frame both logs hold on which they differ, and the parts
    /// that differ there; `None` if they agree on every frame both hold.
    pub fn first_mismatch(&self, other: &DesyncLog) -> Option<LogMismatch> {
        for (&frame, mine) in &self.frames {
            let Some(theirs) = other.frames.get(&frame) else {
                continue;
            };
            if mine == theirs {
                continue;
            }
            let mut parts: Vec<String> = mine
                .iter()
                .filter(|(key, digest)| {
                    theirs
                        .iter()
                        .find(|(other, _)| other == key)
                        .is_none_or(|(_, other)| other != digest)
                })
                .map(|(key, _)| key.clone())
                .collect();
            for (key, _) in theirs {
                if !mine.iter().any(|(other, _)| other == key) {
                    parts.push(key.clone());
                }
            }
            return Some(LogMismatch { frame, parts });
        }
        None
    }

    /// A log in its text form (see [`DesyncLog`]). Blank lines are skipped.
    ///
    /// # Errors
    ///
    /// A [`LogParseError`] naming the first line that is not a frame, a
    /// part and a hex digest.
    pub fn parse(text: &str) -> Result<DesyncLog, LogParseError> {
        let mut log = DesyncLog::new();
        for (index, line) in text.lines().enumerate() {
            let error = |reason: &str| LogParseError {
                line: index + 1,
                reason: reason.to_owned(),
            };
            let mut words = line.split_whitespace();
            let (Some(frame), Some(part), Some(digest), None) =
                (words.next(), words.next(), words.next(), words.next())
            else {
                if line.trim().is_empty() {
                    continue;
                }
                return Err(error("expected three words: a frame, a part and a digest"));
            };
            let frame: Frame = frame
                .parse()
                .map_err(|_| error("the frame is not a number"))?;
            let digest = u128::from_str_radix(digest, 16)
                .map_err(|_| error("the digest is not a 128-bit hex number"))?;
            log.frames
                .entry(frame)
                .or_default()
                .push((part.to_owned(), digest));
        }
        Ok(log)
    }
}

/// The text form: one line per frame and part (see [`DesyncLog`]).
impl fmt::Display for DesyncLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (frame, parts) in &self.frames {
            for (part, digest) in parts {
                writeln!(f, "{frame} {part} {digest:032x}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_log_that_is_not_one_is_an_error_naming_the_line() {
        let good = "1 entities 00ff\n\n1 component:Pos 1\n";
        assert_eq!(DesyncLog::parse(good).unwrap().frames().count(), 1);
        let error = DesyncLog::parse("1 entities 00ff\n1 component:Pos\n").unwrap_err();
        assert_eq!(
            error.to_string(),
            "line 2: expected three words: a frame, a part and a digest"
        );
        for (text, line) in [
            ("1 entities 00ff\n1 component:Pos\n", 2),
            ("x entities 00ff\n", 1),
            ("1 entities 00fg\n", 1),
            ("1 entities 1 extra\n", 1),
            ("1 entities 1000000000000000000000000000000000\n", 1),
        ] {
            let error = DesyncLog::parse(text).unwrap_err();
            assert_eq!(error.line, line, "{text:?}: {error}");
        }
    }

    #[test]
    fn a_log_counts_its_frames_and_keeps_the_last_ones() {
        let empty = DesyncLog::new();
        assert!(empty.is_empty());
        assert_eq!((empty.len(), empty.last_frame()), (0, None));
        let mut log = DesyncLog::parse("1 entities 1\n2 entities 2\n3 entities 3\n").unwrap();
        assert!(!log.is_empty());
        assert_eq!((log.len(), log.last_frame()), (3, Some(3)));
        log.keep_last(2);
        assert_eq!(log.frames().collect::<Vec<_>>(), [2, 3]);
        assert_eq!((log.len(), log.last_frame()), (2, Some(3)));
        log.keep_last(5);
        assert_eq!(log.len(), 2);
    }

    #[test]
    fn logs_compare_on_the_frames_both_hold() {
        let a = DesyncLog::parse("1 entities 1\n2 entities 2\n2 component:Pos 5\n").unwrap();
        let b = DesyncLog::parse("2 entities 2\n2 component:Pos 6\n3 entities 9\n").unwrap();
        let mismatch = a.first_mismatch(&b).unwrap();
        assert_eq!(mismatch.frame, 2);
        assert_eq!(mismatch.parts, ["component:Pos"]);
        assert_eq!(mismatch.to_string(), "frame 2: component `Pos` differs");
        // A part one log has and the other lacks differs too.
        let c = DesyncLog::parse("2 entities 2\n2 component:Pos 5\n2 resource:Score 1\n").unwrap();
        assert_eq!(a.first_mismatch(&c).unwrap().parts, ["resource:Score"]);
        // Several parts: listed in log order, then "differ".
        let d = DesyncLog::parse("2 entities 3\n2 component:Pos 6\n").unwrap();
        assert_eq!(
            a.first_mismatch(&d).unwrap().to_string(),
            "frame 2: entities, component `Pos` differ"
        );
        assert_eq!(a.first_mismatch(&a), None);
        assert_eq!(DesyncLog::parse(&a.to_string()).unwrap(), a);
    }
}
