//! The arena: parallel, deterministic matches between engines, with honest statistics.

pub mod pgn;
pub mod positions;
pub mod rating;
pub mod stats;

use crate::game::{Game, XiangqiGame};
use crate::game::{GameRecord, Player};
use crate::params::Params;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use std::path::Path;

/// The ply cap of every game unless a user sets another (`match --max-plies`, a run's
/// `max_plies`): long enough that nearly every decided game ends before it.
pub const DEFAULT_MAX_PLIES: usize = 300;

/// Reads a player: `default` (the built-in weights), `random:SEED` (every weight drawn at random,
/// reproducibly), a game's own names (Xiangqi: `material`), or the path of a weight file.
pub fn player_weights<G: Game>(spec: &str) -> Result<G::Weights, String> {
    if spec == "default" {
        return Ok(G::weights(&Params::defaults(G::specs())));
    }
    if let Some(w) = G::named_player(spec) {
        return Ok(w);
    }
    match spec.strip_prefix("random:") {
        Some(seed) => {
            let seed: u64 = seed
                .parse()
                .map_err(|_| format!("'{spec}': the seed after 'random:' must be a whole number"))?;
            Ok(random_weights::<G>(seed))
        }
        None => load_weights::<G>(Path::new(spec)),
    }
}

/// The player `random:SEED`: every weight drawn at random from its range, reproducibly.
pub fn random_weights<G: Game>(seed: u64) -> G::Weights {
    G::weights(&Params::random(G::specs(), &mut ChaCha8Rng::seed_from_u64(seed)))
}

/// Reads a weight file of game `G`, with a message naming what is wrong.
pub fn load_weights<G: Game>(path: &Path) -> Result<G::Weights, String> {
    Ok(G::weights(&Params::load(path, G::NAME, G::specs())?))
}

/// Reads start positions of game `G`: one FEN per line, `#` comments and blank lines skipped.
pub fn read_positions<G: Game>(path: &Path) -> Result<Vec<G::Board>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut boards = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        boards.push(G::parse_position(line).map_err(|e| format!("{} line {}: {e}", path.display(), i + 1))?);
    }
    if boards.is_empty() {
        return Err(format!("{} holds no positions", path.display()));
    }
    Ok(boards)
}

/// A match between players A and B.
#[derive(Clone, Debug)]
pub struct Match<G: Game = XiangqiGame> {
    pub a: Player<G::Weights>,
    pub b: Player<G::Weights>,
    /// Start positions, used pair by pair in this order (wrapping around).
    pub positions: Vec<G::Board>,
    /// Games to play; each position is played twice with colours swapped.
    pub games: usize,
    /// A game reaching this many plies is a draw ([`DEFAULT_MAX_PLIES`] unless told).
    pub max_plies: usize,
    pub adjudication: crate::game::Adjudication,
    /// Stop as soon as this test decides (judged on the games in schedule order).
    pub sprt: Option<stats::Sprt>,
    /// Transposition table per game, MiB.
    pub tt_mb: usize,
}

/// One played game of a match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played<G: Game = XiangqiGame> {
    pub index: usize,
    /// Whether A had the first player's side (Red, White).
    pub a_is_red: bool,
    pub record: GameRecord<G::Move>,
}

impl<G: Game> Played<G> {
    /// The result from A's point of view: 1, 1/2 or 0 as (win, draw, loss).
    pub fn a_result(&self) -> stats::Wdl {
        let a_color = if self.a_is_red {
            crate::xiangqi::Color::Red
        } else {
            crate::xiangqi::Color::Black
        };
        match self.record.winner {
            None => stats::Wdl {
                draws: 1,
                ..Default::default()
            },
            Some(c) if c == a_color => stats::Wdl {
                wins: 1,
                ..Default::default()
            },
            Some(_) => stats::Wdl {
                losses: 1,
                ..Default::default()
            },
        }
    }
}

impl<G: Game> Match<G> {
    /// Plays every game on a pool of `threads` workers, calling `done` as each finishes.
    /// The results come back in schedule order, the same for any number of threads. With an
    /// SPRT, games are played in batches of a fixed size and the match ends at the first
    /// game pair (in schedule order) after which the test decides; later games are dropped.
    pub fn run(&self, threads: usize, done: impl Fn(&Played<G>) + Sync) -> Result<Vec<Played<G>>, String> {
        const BATCH: usize = 64;
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads.max(1))
            .build()
            .map_err(|e| format!("cannot start {threads} threads: {e}"))?;
        let mut played: Vec<Played<G>> = Vec::new();
        let mut wdl = stats::Wdl::default();
        while played.len() < self.games {
            let end = match self.sprt {
                Some(_) => (played.len() + BATCH).min(self.games),
                None => self.games,
            };
            let batch: Vec<Played<G>> = pool.install(|| {
                (played.len()..end)
                    .into_par_iter()
                    .map(|index| {
                        let p = self.play(index);
                        done(&p);
                        p
                    })
                    .collect()
            });
            for p in batch {
                let r = p.a_result();
                wdl = stats::Wdl {
                    wins: wdl.wins + r.wins,
                    draws: wdl.draws + r.draws,
                    losses: wdl.losses + r.losses,
                };
                played.push(p);
                if let Some(t) = self.sprt {
                    if played.len() % 2 == 0 && t.decide(&wdl).is_some() {
                        return Ok(played);
                    }
                }
            }
        }
        Ok(played)
    }

    /// Game `index`: pair `index / 2` on its position; A has Red in the pair's first game.
    pub fn play(&self, index: usize) -> Played<G> {
        let start = &self.positions[(index / 2) % self.positions.len()];
        let a_is_red = index % 2 == 0;
        let (red, black) = if a_is_red {
            (&self.a, &self.b)
        } else {
            (&self.b, &self.a)
        };
        Played {
            index,
            a_is_red,
            record: G::play(start, red, black, self.max_plies, &self.adjudication, self.tt_mb),
        }
    }
}

/// Sums results from A's point of view.
pub fn tally<G: Game>(played: &[Played<G>]) -> stats::Wdl {
    played.iter().fold(stats::Wdl::default(), |acc, p| {
        let r = p.a_result();
        stats::Wdl {
            wins: acc.wins + r.wins,
            draws: acc.draws + r.draws,
            losses: acc.losses + r.losses,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Adjudication, Budget, Ending, XiangqiGame};
    use crate::xiangqi::Xiangqi;

    fn small_match(games: usize, max_plies: usize) -> Match<XiangqiGame> {
        Match {
            a: Player {
                weights: player_weights::<XiangqiGame>("default").unwrap(),
                budget: Budget::Nodes(300),
            },
            b: Player {
                weights: player_weights::<XiangqiGame>("random:3").unwrap(),
                budget: Budget::Nodes(300),
            },
            positions: (0..games as u64)
                .map(|s| XiangqiGame::random_opening(s, 6))
                .collect(),
            games,
            max_plies,
            adjudication: Adjudication::default(),
            sprt: None,
            tt_mb: 1,
        }
    }

    #[test]
    fn every_game_replays_legally_within_the_cap() {
        let m = small_match(8, 60);
        for p in m.run(2, |_| {}).unwrap() {
            let r = &p.record;
            assert!(r.plies() <= 60);
            let mut g = Xiangqi::from_fen(&r.start_fen).unwrap();
            for mv in &r.moves {
                assert!(g.board().is_legal(*mv), "{} in {}", mv, g.board().fen());
                g.play(*mv);
            }
            match r.ending {
                Ending::Rules(t) => {
                    let o = g.outcome().unwrap();
                    assert_eq!((o.winner, o.termination), (r.winner, t));
                }
                Ending::PlyCap => assert!(g.outcome().is_none() && r.plies() == 60 && r.winner.is_none()),
                other => panic!("unexpected ending {other}"),
            }
        }
    }

    #[test]
    fn results_do_not_depend_on_threads() {
        let m = small_match(6, 80);
        assert_eq!(m.run(1, |_| {}).unwrap(), m.run(2, |_| {}).unwrap());
    }

    #[test]
    fn players_and_positions_are_checked() {
        assert!(player_weights::<XiangqiGame>("random:abc")
            .unwrap_err()
            .contains("random:abc"));
        assert!(player_weights::<XiangqiGame>("/no/such/weights.json").is_err());
        assert_ne!(
            format!("{:?}", player_weights::<XiangqiGame>("random:1")),
            format!("{:?}", player_weights::<XiangqiGame>("random:2"))
        );
    }
}
