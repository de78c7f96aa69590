//! What `suggest` and `tune` share: the window of a data item's recent history they read
//! ([`load`]), the statistics and rounding their thresholds are fitted with ([`numbers`]),
//! scoring checks with the engine on every point of the window ([`score`]), and the answer
//! with one result per item ([`answer`]).

pub mod answer;
pub mod load;
pub mod numbers;
pub mod score;
