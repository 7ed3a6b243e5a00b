//! The registry of games: the one place that lists them, by the name their weight files and
//! configurations use. A new game is a module of its own and a line here.

use crate::amazons::game::AmazonsGame;
use crate::game::Game;
use crate::params::{Retired, Specs};
use crate::xiangqi::game::XiangqiGame;

/// A job to run with the game a name picks (see [`with_game`]).
pub trait WithGame {
    type Output;
    fn call<G: Game>(self) -> Self::Output;
}

/// A game name qitune does not know.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("game '{0}' is unknown ({names})", names = GAMES.join(" or "))]
pub struct UnknownGame(pub String);

macro_rules! registry {
    ($($game:ty),* $(,)?) => {
        /// Every game's name, in the registry's order.
        pub const GAMES: &[&str] = &[$(<$game as Game>::NAME),*];

        /// Runs `job` with the game named `name`.
        pub fn with_game<J: WithGame>(name: &str, job: J) -> Result<J::Output, UnknownGame> {
            $(if name == <$game as Game>::NAME {
                return Ok(job.call::<$game>());
            })*
            Err(UnknownGame(name.to_string()))
        }
    };
}

registry!(XiangqiGame, AmazonsGame);

/// The tunable parameters of the game called `name`, if qitune knows it.
pub fn specs_for(name: &str) -> Option<Specs> {
    struct SpecsOf;
    impl WithGame for SpecsOf {
        type Output = Specs;
        fn call<G: Game>(self) -> Specs {
            G::specs()
        }
    }
    with_game(name, SpecsOf).ok()
}

/// The parameters the game called `name` no longer has (see [`crate::params::Retired`]).
pub fn retired_for(name: &str) -> &'static [Retired] {
    struct Gone;
    impl WithGame for Gone {
        type Output = &'static [Retired];
        fn call<G: Game>(self) -> &'static [Retired] {
            G::RETIRED
        }
    }
    with_game(name, Gone).unwrap_or(&[])
}

/// Plays game `index` of a schedule sent by another process, for the game it names.
pub fn play_sent(
    schedule: &crate::arena::wire::ScheduleWire,
    index: usize,
    engines: &crate::arena::outside::Engines,
) -> Result<crate::arena::wire::RecordWire, crate::arena::ArenaError> {
    use crate::arena::wire::{RecordWire, ScheduleWire};
    use crate::arena::{outside::Engines, ArenaError};
    struct Play<'a>(&'a ScheduleWire, usize, &'a Engines);
    impl WithGame for Play<'_> {
        type Output = Result<RecordWire, ArenaError>;
        fn call<G: Game>(self) -> Self::Output {
            self.0.play::<G>(self.1, self.2)
        }
    }
    with_game(&schedule.game, Play(schedule, index, engines)).map_err(|e| ArenaError::Wire(e.to_string()))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_is_found_by_its_name_and_no_other() {
        for name in GAMES {
            assert!(specs_for(name).is_some_and(|s| !s.is_empty()), "{name}");
        }
        assert_eq!(
            with_game("chess", {
                struct Name;
                impl WithGame for Name {
                    type Output = &'static str;
                    fn call<G: Game>(self) -> &'static str {
                        G::NAME
                    }
                }
                Name
            })
            .unwrap_err()
            .to_string(),
            "game 'chess' is unknown (xiangqi or amazons)"
        );
    }
}
