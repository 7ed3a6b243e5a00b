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
