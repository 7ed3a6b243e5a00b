//! Time allocation for real clocks (seed 000).
//!
//! Et, the expected time for a move, is `left / movestogo` with a moves-per-period clock, or
//! `inc + left / N` in sudden death. Mt, the hard cap, is a few times Et but always leaves
//! a safety margin of the time left. After each iteration the score is compared with the
//! previous one: a drop of up to 3% of a rook allows 2 Et, up to 7% allows 4 Et, more allows
//! Mt. A single reply or an obvious recapture needs much less.

use super::knobs::TimeKnobs;
use std::time::{Duration, Instant};

/// How the clock stands for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// Exactly this long for the move.
    MoveTime(Duration),
    /// Time left on the clock, the increment per move, and the moves until the next control
    /// (`None` for sudden death).
    Clock {
        left: Duration,
        increment: Duration,
        moves_to_go: Option<u32>,
    },
}

/// A new iteration starts only while this share (in tenths) of the target is left unspent:
/// one that cannot finish is mostly wasted.
const NEW_ITERATION_TENTHS: u32 = 6;
/// Never plan to use the last part of the clock: a fixed reserve plus a share of what is left,
/// for the time the protocol and the operating system take.
const RESERVE: Duration = Duration::from_millis(30);

/// The budget of one move.
#[derive(Clone, Copy, Debug)]
pub struct TimeManager {
    start: Instant,
    expected: Duration,
    hard: Duration,
    target: Duration,
}

impl TimeManager {
    /// A budget starting now. `knobs.moves_left` is the moves assumed left in a sudden-death
    /// game (middlegame games last about 68 moves a side; assuming 25, the engine was down to
    /// its increment by move 30); the hard cap never takes more than the usable clock divided
    /// by `knobs.hard_share`, plus the increment.
    pub fn new(control: TimeControl, knobs: TimeKnobs) -> TimeManager {
        let (expected, hard) = match control {
            TimeControl::MoveTime(t) => {
                let t = t
                    .saturating_sub(Duration::from_millis(5))
                    .max(Duration::from_millis(1));
                (t, t)
            }
            TimeControl::Clock {
                left,
                increment,
                moves_to_go,
            } => {
                let usable = left.saturating_sub(RESERVE + left / 20);
                let expected = match moves_to_go {
                    Some(n) if n > 0 => left / n.min(60) + increment / 2,
                    _ => increment + left / knobs.moves_left,
                };
                let hard = (expected * 4)
                    .min(usable / knobs.hard_share + increment)
                    .min(usable);
                (expected.min(hard), hard)
            }
        };
        TimeManager {
            start: Instant::now(),
            expected,
            hard,
            target: expected,
        }
    }

    /// Restarts the budget now (at `ponderhit`: the clock starts when the opponent has moved).
    pub fn restart(&mut self) {
        self.start = Instant::now();
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Et, the expected time for this move.
    pub fn expected(&self) -> Duration {
        self.expected
    }

    /// Mt, the hard cap.
    pub fn hard(&self) -> Duration {
        self.hard
    }

    /// The current soft target (Et, possibly extended).
    pub fn target(&self) -> Duration {
        self.target
    }

    /// Whether the hard cap has been reached: the search must stop at once.
    pub fn out_of_time(&self) -> bool {
        self.elapsed() >= self.hard
    }

    /// Whether the soft target is spent.
    pub fn target_spent(&self) -> bool {
        self.elapsed() >= self.target
    }

    /// Whether so much of the target is spent that a new iteration should not start.
    pub fn iteration_unaffordable(&self) -> bool {
        self.elapsed() * 10 >= self.target * NEW_ITERATION_TENTHS
    }

    /// Adjusts the target after an iteration from the score's drop (in the search's units),
    /// measured against a rook's value.
    pub fn after_iteration(&mut self, previous: i32, score: i32, rook_value: i32) {
        let drop = previous - score;
        let rook = rook_value.max(1);
        self.target = if drop * 100 <= 0 {
            self.expected
        } else if drop * 100 <= 3 * rook {
            self.expected * 2
        } else if drop * 100 <= 7 * rook {
            self.expected * 4
        } else {
            self.hard
        }
        .min(self.hard);
    }

    /// Shrinks the target for an easy move: `divisor` 10 for a single reply, 4 for an
    /// obvious recapture.
    pub fn easy_move(&mut self, divisor: u32) {
        self.target = (self.expected / divisor.max(1)).min(self.target);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// A sudden-death clock with `left` and no increment, at the default knobs.
    fn sudden_death(left: Duration) -> TimeManager {
        TimeManager::new(
            TimeControl::Clock {
                left,
                increment: ms(0),
                moves_to_go: None,
            },
            TimeKnobs::default(),
        )
    }

    #[test]
    fn budgets_stay_inside_the_clock() {
        let sd = TimeManager::new(
            TimeControl::Clock {
                left: ms(60_000),
                increment: ms(0),
                moves_to_go: None,
            },
            TimeKnobs::default(),
        );
        assert_eq!(sd.expected(), ms(60_000) / TimeKnobs::default().moves_left);
        assert!(sd.hard() >= sd.expected() && sd.hard() < ms(60_000) / 2);
        let inc = TimeManager::new(
            TimeControl::Clock {
                left: ms(2000),
                increment: ms(100),
                moves_to_go: None,
            },
            TimeKnobs::default(),
        );
        assert_eq!(
            inc.expected(),
            ms(100) + ms(2000) / TimeKnobs::default().moves_left
        );
        assert!(inc.hard() <= ms(2000) - RESERVE);
        let period = TimeManager::new(
            TimeControl::Clock {
                left: ms(30_000),
                increment: ms(0),
                moves_to_go: Some(10),
            },
            TimeKnobs::default(),
        );
        assert_eq!(period.expected(), ms(3000));
        // Almost no time left: still a positive budget below what is left.
        let flag = TimeManager::new(
            TimeControl::Clock {
                left: ms(40),
                increment: ms(0),
                moves_to_go: None,
            },
            TimeKnobs::default(),
        );
        assert!(flag.hard() < ms(40));
        let fixed = TimeManager::new(TimeControl::MoveTime(ms(500)), TimeKnobs::default());
        assert_eq!(fixed.hard(), fixed.expected());
    }

    #[test]
    fn score_drops_extend_the_target() {
        let mut tm = sudden_death(ms(100_000));
        let et = tm.expected();
        tm.after_iteration(100, 110, 900);
        assert_eq!(tm.target(), et);
        tm.after_iteration(100, 80, 900); // 20 <= 3% of 900
        assert_eq!(tm.target(), et * 2);
        tm.after_iteration(100, 50, 900); // 50 <= 7% of 900
        assert_eq!(tm.target(), et * 4);
        tm.after_iteration(100, -100, 900);
        assert_eq!(tm.target(), tm.hard());
        tm.after_iteration(0, 0, 900);
        tm.easy_move(4);
        assert_eq!(tm.target(), et / 4);
    }
}
