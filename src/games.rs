//! The games qitune knows, by the name their weight files and configurations use.

use crate::amazons::game::AmazonsGame;
use crate::game::Game;
use crate::params::Spec;
use crate::xiangqi::game::XiangqiGame;

/// The tunable parameters of the game called `name`, if qitune knows it.
pub fn specs_for(name: &str) -> Option<&'static [Spec]> {
    match name {
        n if n == XiangqiGame::NAME => Some(XiangqiGame::specs()),
        n if n == AmazonsGame::NAME => Some(AmazonsGame::specs()),
        _ => None,
    }
}

/// The parameters the game called `name` no longer has (see [`crate::params::Retired`]).
pub fn retired_for(name: &str) -> &'static [crate::params::Retired] {
    match name {
        n if n == XiangqiGame::NAME => XiangqiGame::RETIRED,
        n if n == AmazonsGame::NAME => AmazonsGame::RETIRED,
        _ => &[],
    }
}

/// Plays game `index` of a schedule sent by another process, for the game it names.
pub fn play_sent(
    schedule: &crate::arena::wire::ScheduleWire,
    index: usize,
    engines: &crate::arena::outside::Engines,
) -> Result<crate::arena::wire::RecordWire, crate::arena::ArenaError> {
    match schedule.game.as_str() {
        n if n == XiangqiGame::NAME => schedule.play::<XiangqiGame>(index, engines),
        n if n == AmazonsGame::NAME => schedule.play::<AmazonsGame>(index, engines),
        other => Err(crate::arena::ArenaError::Wire(format!(
            "game '{other}' is unknown"
        ))),
    }
}
