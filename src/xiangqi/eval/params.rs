//! The evaluation's parameters: the scalar weights, the piece-square tables, their specs
//! and meanings, and the built-in and material-only sets.

use super::super::knobs;
use super::super::types::{File, Rank, Role, Square};
use crate::params::{Params, Spec, Specs};
use std::sync::LazyLock;

macro_rules! scalar_specs {
    ($($name:ident = $default:expr, [$min:expr, $max:expr], $bits:expr;)*) => {
        /// Indices of the scalar parameters in the spec list. (The imbalance terms are read
        /// by their place after the first of them, so most of their names go unused.)
        #[allow(non_camel_case_types, clippy::upper_case_acronyms, dead_code)]
        #[derive(Clone, Copy)]
        #[repr(usize)]
        pub(super) enum S { $($name,)* }
        pub(super) const SCALARS: &[Spec] = &[$(Spec {
            name: std::borrow::Cow::Borrowed(stringify!($name)),
            default: $default,
            min: $min,
            max: $max,
            bits: $bits,
            opt_in: false,
            knob: false,
        },)*];
    };
}

scalar_specs! {
    king = 10_000, [10_000, 10_000], 0;
    advisor = 105, [50, 400], 8;
    elephant = 105, [50, 400], 8;
    horse = 331, [200, 800], 9;
    rook = 1208, [500, 1500], 10;
    cannon = 409, [200, 800], 9;
    pawn = 126, [20, 200], 8;
    advisor_eg = -26, [-120, 120], 8;
    elephant_eg = -31, [-120, 120], 8;
    horse_eg = 24, [-120, 120], 8;
    rook_eg = -15, [-120, 120], 8;
    cannon_eg = -54, [-120, 120], 8;
    pawn_crossed_eg = 68, [-60, 200], 8;
    mobility_horse = 14, [0, 31], 5;
    mobility_rook = 6, [0, 31], 5;
    mobility_cannon = 4, [0, 31], 5;
    hanging = -34, [-250, 0], 8;
    attacked_defended = -11, [-60, 20], 6;
    protected = 7, [-10, 30], 6;
    missing_advisor = -41, [-100, 20], 7;
    missing_elephant = -35, [-100, 20], 7;
    king_file_rook = -29, [-120, 20], 7;
    king_file_cannon = -51, [-120, 20], 7;
    palace_pressure = -2, [-40, 10], 6;
    linked_advisors = 16, [-20, 60], 6;
    linked_elephants = 15, [-20, 60], 6;
    hollow_cannon = 2, [-60, 200], 8;
    cannon_pins_horse = 4, [-60, 200], 8;
    bottom_cannon = -5, [-60, 200], 8;
    rook_open_file = 4, [-40, 80], 7;
    rook_half_open_file = 4, [-40, 80], 7;
    paired_pawns = 1, [-40, 80], 7;
    palace_attackers = 6, [-20, 60], 6;
    hollow_cannon_home = 0, [-60, 200], 8;
    cannon_pins_horse_home = 0, [-60, 200], 8;
    unsafe_mobility = 0, [-31, 10], 6;
    wing_attack = 20, [-40, 80], 7;
    wing_attack_safe = 0, [-40, 80], 7;
    bare_palace_pawn = -20, [-60, 20], 6;
    threat_by_lesser = 0, [-120, 20], 7;
    imbalance_rook_rook = 0, [-30, 30], 6;
    imbalance_horse_rook = 0, [-30, 30], 6;
    imbalance_horse_horse = 0, [-30, 30], 6;
    imbalance_cannon_rook = 0, [-30, 30], 6;
    imbalance_cannon_horse = 0, [-30, 30], 6;
    imbalance_cannon_cannon = 0, [-30, 30], 6;
    imbalance_advisor_rook = 0, [-30, 30], 6;
    imbalance_advisor_horse = 0, [-30, 30], 6;
    imbalance_advisor_cannon = 0, [-30, 30], 6;
    imbalance_advisor_advisor = 0, [-30, 30], 6;
    imbalance_elephant_rook = 0, [-30, 30], 6;
    imbalance_elephant_horse = 0, [-30, 30], 6;
    imbalance_elephant_cannon = 0, [-30, 30], 6;
    imbalance_elephant_advisor = 0, [-30, 30], 6;
    imbalance_elephant_elephant = 0, [-30, 30], 6;
    imbalance_pawn_rook = 0, [-30, 30], 6;
    imbalance_pawn_horse = 0, [-30, 30], 6;
    imbalance_pawn_cannon = 0, [-30, 30], 6;
    imbalance_pawn_advisor = 0, [-30, 30], 6;
    imbalance_pawn_elephant = 0, [-30, 30], 6;
    imbalance_pawn_pawn = 0, [-30, 30], 6;
    imbalance_horse_vs_rook = 0, [-30, 30], 6;
    imbalance_cannon_vs_rook = 0, [-30, 30], 6;
    imbalance_cannon_vs_horse = 0, [-30, 30], 6;
    imbalance_advisor_vs_rook = 0, [-30, 30], 6;
    imbalance_advisor_vs_horse = 0, [-30, 30], 6;
    imbalance_advisor_vs_cannon = 0, [-30, 30], 6;
    imbalance_elephant_vs_rook = 0, [-30, 30], 6;
    imbalance_elephant_vs_horse = 0, [-30, 30], 6;
    imbalance_elephant_vs_cannon = 0, [-30, 30], 6;
    imbalance_elephant_vs_advisor = 0, [-30, 30], 6;
    imbalance_pawn_vs_rook = 0, [-30, 30], 6;
    imbalance_pawn_vs_horse = 0, [-30, 30], 6;
    imbalance_pawn_vs_cannon = 0, [-30, 30], 6;
    imbalance_pawn_vs_advisor = 0, [-30, 30], 6;
    imbalance_pawn_vs_elephant = 0, [-30, 30], 6;
    crossed_pawns_1 = 0, [-100, 100], 8;
    crossed_pawns_2 = 0, [-100, 100], 8;
    crossed_pawns_3 = 0, [-100, 100], 8;
    tempo = 19, [0, 40], 6;
}

/// The spec index of the first material imbalance parameter; the others follow it.
pub(super) const IMBALANCE_FIRST: usize = S::imbalance_rook_rook as usize;
/// The roles the material imbalance pairs, in the order of its parameters' names.
pub(super) const IMBALANCE_ROLES: [Role; 6] = [
    Role::Rook,
    Role::Horse,
    Role::Cannon,
    Role::Advisor,
    Role::Elephant,
    Role::Pawn,
];
/// How many material imbalance parameters there are: a pair of own roles each (two of one
/// role included, n (n + 1) / 2), then an own role against an enemy one (n (n - 1) / 2).
pub(super) const IMBALANCE_COUNT: usize = IMBALANCE_ROLES.len() * IMBALANCE_ROLES.len();

/// The crossed-pawn terms, the `n`-th for a side with at least `n + 1` pawns across the
/// river short of the enemy's back rank (see [`super::terms::crossed_pawns`]).
pub(super) const CROSSED_PAWNS: [S; 3] = [S::crossed_pawns_1, S::crossed_pawns_2, S::crossed_pawns_3];

/// Piece-square values for Red on files a..e (the rest mirror), rank 0 (Red's back rank)
/// first: hand-set, then tuned (the module's header says how).
pub(super) const HORSE_PST: [[i32; 5]; 10] = [
    [-19, -24, -12, 1, 29],
    [-12, 5, -24, -1, -7],
    [-27, -4, -6, 13, 29],
    [13, 8, 1, 5, 25],
    [-14, 15, 33, 28, 25],
    [10, 21, 13, 42, 36],
    [-4, 42, 7, 56, 19],
    [32, 4, 18, 44, 32],
    [-26, 18, 39, 52, 37],
    [-19, 7, 2, 3, 13],
];
pub(super) const ROOK_PST: [[i32; 5]; 10] = [
    [-37, 14, -9, 0, 17],
    [-16, -7, -10, -1, -2],
    [-13, 14, -16, 7, 11],
    [-6, 15, 26, 29, -7],
    [-7, 23, 25, 18, 18],
    [4, 10, 29, 9, -4],
    [2, 18, 22, 27, -12],
    [-11, -9, 16, 4, 5],
    [-2, 7, 8, 0, 20],
    [9, 2, 15, 19, 6],
];
pub(super) const CANNON_PST: [[i32; 5]; 10] = [
    [-23, -5, 9, 21, -6],
    [-23, 3, 6, 11, -9],
    [17, -1, 16, 31, 34],
    [-11, 7, 19, 3, 23],
    [-1, -19, 22, 0, 27],
    [7, -3, -13, -5, 16],
    [-14, -8, 4, -8, 23],
    [11, -17, -6, -18, 0],
    [-1, -1, 2, -4, -10],
    [27, -7, -14, -7, 14],
];
/// Ranks 3 to 9; before the river a pawn stands only on files a, c and e.
pub(super) const PAWN_PST: [[i32; 5]; 7] = [
    [-8, 0, -19, 0, 10],
    [-10, 0, 18, 0, 0],
    [5, 19, 36, 46, 49],
    [21, 44, 60, 64, 71],
    [21, 42, 75, 73, 84],
    [53, 29, 73, 94, 94],
    [8, -6, 23, 29, 20],
];

/// Points each role can stand on for Red, on files a..e (the rest mirror), with the
/// default piece-square value of each. Rank 0 is Red's back rank.
pub(super) fn default_pst(role: Role, file: u32, rank: u32) -> Option<i32> {
    let f = file as usize;
    let r = rank as usize;
    Some(match role {
        Role::King => {
            if !(3..=4).contains(&f) || r > 2 {
                return None;
            }
            [[2, 15], [-27, 21], [-61, -6]][r][f - 3]
        }
        Role::Advisor => match (f, r) {
            (3, 0) => -25,
            (4, 1) => 19,
            (3, 2) => -3,
            _ => return None,
        },
        Role::Elephant => match (f, r) {
            (2, 0) => -7,
            (0, 2) => -23,
            (4, 2) => 18,
            (2, 4) => -15,
            _ => return None,
        },
        Role::Horse => HORSE_PST[r][f],
        Role::Rook => ROOK_PST[r][f],
        Role::Cannon => CANNON_PST[r][f],
        Role::Pawn => match r {
            0..=2 => return None,
            3 | 4 if f % 2 == 1 => return None,
            _ => PAWN_PST[r - 3][f],
        },
    })
}

/// The piece-square parameters: (role, file 0..4, rank) in spec order after the scalars.
pub(super) static PST_POINTS: LazyLock<Vec<(Role, u32, u32)>> = LazyLock::new(|| {
    let mut v = Vec::new();
    for role in Role::ALL {
        for rank in 0..10 {
            for file in 0..5 {
                if default_pst(role, file, rank).is_some() {
                    v.push((role, file, rank));
                }
            }
        }
    }
    v
});

static SPECS: LazyLock<Specs> = LazyLock::new(|| {
    let mut v = SCALARS.to_vec();
    // The material imbalance is on trial: no tuned set or measured run has it.
    for s in &mut v[IMBALANCE_FIRST..IMBALANCE_FIRST + IMBALANCE_COUNT] {
        s.opt_in = true;
    }
    // So is the crossed pawns' count.
    for s in CROSSED_PAWNS {
        v[s as usize].opt_in = true;
    }
    // Each point's piece-square value, and its endgame value after the knobs: on trial, zero
    // by default, so every tuned set and measured run before them stays as it was.
    let mut endgame = Vec::with_capacity(PST_POINTS.len());
    for &(role, file, rank) in PST_POINTS.iter() {
        let sq = Square::from_coords(File::new(file).expect("file"), Rank::new(rank).expect("rank"));
        let default = default_pst(role, file, rank).expect("listed point");
        let point = format!("{}_{}", role.name(), sq);
        endgame.push(Spec {
            opt_in: true,
            ..Spec::named(format!("endgame_{point}"), 0, -100, 100, 7)
        });
        v.push(Spec::named(format!("pst_{point}"), default, -100, 100, 7));
    }
    v.extend(knobs::SPECS);
    v.extend(endgame);
    v.into()
});

/// The spec index of the first endgame piece-square parameter (`endgame_ROLE_FR`); the
/// others follow it in the order of [`PST_POINTS`].
pub(super) fn endgame_first() -> usize {
    SCALARS.len() + PST_POINTS.len() + knobs::SPECS.len()
}

/// Every tunable parameter of the Xiangqi evaluation, in a fixed order.
pub fn specs() -> Specs {
    SPECS.clone()
}

/// A parameter's meaning in one line.
pub fn describe(name: &str) -> String {
    if let Some(meaning) = knobs::describe(name) {
        return meaning.to_string();
    }
    for (prefix, endgame) in [("pst_", false), ("endgame_", true)] {
        if let Some((role, point)) = name.strip_prefix(prefix).and_then(|rest| rest.split_once('_')) {
            let article = if role.starts_with(['a', 'e']) { "an" } else { "a" };
            return if endgame {
                format!("added to the piece-square value of {article} {role} on {point} as the material thins out (tapered by phase; see pst_{role}_{point})")
            } else {
                format!("piece-square value of {article} {role} on {point} for Red (files f-i mirror d-a; Black's points seen from its side)")
            };
        }
    }
    if let Some(rest) = name.strip_prefix("imbalance_") {
        if let Some((own, enemy)) = rest.split_once("_vs_") {
            return format!(
                "material imbalance: for each own {own} times each enemy {enemy}, less the same with the sides swapped"
            );
        }
        if let Some((a, b)) = rest.split_once('_') {
            return if a == b {
                format!("material imbalance: for each pair of own {a}s")
            } else {
                format!("material imbalance: for each own {a} times each own {b}")
            };
        }
    }
    if let Some(n) = name.strip_prefix("crossed_pawns_") {
        let pawns = if n == "1" { "pawn" } else { "pawns" };
        return format!("for {n} or more {pawns} across the river short of the enemy's back rank (on top of each pawn's piece-square value)");
    }
    match name {
        "king" => "the king's value (fixed: never evolves)",
        "advisor" | "elephant" | "horse" | "rook" | "cannon" => "material value in the middlegame",
        "pawn" => "material value of a pawn (crossed pawns add their piece-square value)",
        "advisor_eg" | "elephant_eg" | "horse_eg" | "rook_eg" | "cannon_eg" => {
            "added to the piece's value as the material thins out (tapered by phase)"
        }
        "pawn_crossed_eg" => "added to a crossed pawn's value as the material thins out",
        "mobility_horse" | "mobility_rook" => "bonus per point the piece attacks that no own piece holds",
        "mobility_cannon" => "bonus per empty point the cannon can slide to",
        "hanging" => "for each piece of the side not to move that is attacked and unprotected",
        "attacked_defended" => "for each piece that is attacked though protected",
        "protected" => "for each protected piece",
        "missing_advisor" => "for each missing advisor, times the enemy rooks, horses and cannons / 4",
        "missing_elephant" => "for each missing elephant, times the enemy rooks, horses and cannons / 4",
        "king_file_rook" => "an enemy rook on the king's file",
        "king_file_cannon" => "an enemy cannon on the king's file",
        "palace_pressure" => "for each point of the own palace the enemy attacks",
        "linked_advisors" => "both advisors present and protected",
        "linked_elephants" => "both elephants present and protected",
        "hollow_cannon" => "a cannon on the enemy king's file with no piece between them",
        "cannon_pins_horse" => {
            "a cannon on the enemy king's file behind two screens, one of them a horse beside that king"
        }
        "bottom_cannon" => "a cannon on the enemy king's rank with no piece between them",
        "rook_open_file" => "a rook on a file without pawns",
        "rook_half_open_file" => "a rook on a file without own pawns but with an enemy one",
        "paired_pawns" => "for each pair of crossed pawns side by side",
        "palace_attackers" => {
            "for each pair of pieces (rooks, horses, cannons, crossed pawns) attacking the enemy palace"
        }
        "hollow_cannon_home" => {
            "a hollow cannon (see hollow_cannon) while the enemy king stands at home between both its advisors, so it cannot step off the file"
        }
        "cannon_pins_horse_home" => {
            "a cannon pinning a horse (see cannon_pins_horse) while the enemy king stands at home between both its advisors"
        }
        "unsafe_mobility" => {
            "for each point a rook, horse or cannon counts in its mobility that an enemy pawn, advisor, elephant or king attacks"
        }
        "wing_attack" => {
            "for each wing (files a to d, f to i) where two or more of the side's rooks, horses and cannons stand across the river"
        }
        "wing_attack_safe" => {
            "for each wing where two or more of the side's rooks, horses and cannons stand across the river on points no enemy pawn, advisor, elephant or king attacks and none it attacks unprotected"
        }
        "bare_palace_pawn" => {
            "for each missing advisor, times the enemy pawns across the river short of the own back rank"
        }
        "threat_by_lesser" => {
            "for each rook an enemy horse, cannon, pawn, advisor or elephant attacks, and each horse or cannon an enemy pawn, advisor or elephant attacks"
        }
        "tempo" => "for the side to move",
        other => return other.to_string(),
    }
    .to_string()
}

/// The built-in parameters.
pub fn default_params() -> Params {
    Params::defaults(&specs())
}

/// Only material at the built-in values: every other weight zero (or its nearest bound).
pub fn material_only_params() -> Params {
    let specs = specs();
    let material = [
        S::king,
        S::advisor,
        S::elephant,
        S::horse,
        S::rook,
        S::cannon,
        S::pawn,
    ];
    let values: Vec<i32> = specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if s.opt_in || material.iter().any(|&m| m as usize == i) {
                s.default
            } else {
                0.clamp(s.min, s.max)
            }
        })
        .collect();
    Params::from_values(&specs, &values).expect("zero is clamped into range")
}

/// The group of a piece-square parameter, `pst_ROLE_FR` (group ROLE) or `endgame_ROLE_FR`
/// (group `endgame_ROLE`), and the squares (file 0..8, rank) that take its value: its own,
/// and on files a-d the mirrored one (files f-i are no parameters).
pub fn pst_squares(name: &str) -> Option<crate::game::Squares<'_>> {
    // The group is the role after `pst_`, the whole name short of its point after `endgame_`.
    let grouped = name
        .strip_prefix("pst_")
        .or(name.starts_with("endgame_").then_some(name))?;
    let (group, point) = grouped.rsplit_once('_')?;
    let mut chars = point.chars();
    let file = chars.next().filter(|c| ('a'..='e').contains(c))? as u32 - 'a' as u32;
    let rank = chars.next()?.to_digit(10)?;
    chars.next().is_none().then_some(())?;
    let mut squares = vec![(file, rank)];
    if file < 4 {
        squares.push((8 - file, rank));
    }
    Some(crate::game::Squares { group, squares })
}
