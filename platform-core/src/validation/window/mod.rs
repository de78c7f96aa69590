//! What `suggest` and `tune` share: the window of a data item's recent history they read
//! ([`load`]), the statistics and rounding their thresholds are fitted with ([`numbers`]),
//! and scoring checks with the engine on every point of the window ([`score`]).

pub mod load;
pub mod numbers;
pub mod score;
