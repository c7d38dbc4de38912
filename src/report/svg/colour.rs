//! Colours that read in print and to colour-blind eyes: a categorical set for unordered
//! series, a sequential ramp (dark violet to yellow, after viridis) for ordered ones such as file
//! sizes, and a diverging ramp (red, white, blue) for ratios centred on 1.

/// For series without an order: cores, NICs, tests.
const CATEGORICAL: [&str; 10] = [
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
    "#bcbd22", "#17becf",
];

/// Stops of the sequential ramp, from low to high.
const SEQUENTIAL: [[u8; 3]; 6] = [
    [68, 1, 84],
    [65, 68, 135],
    [42, 120, 142],
    [34, 168, 132],
    [122, 209, 81],
    [253, 231, 37],
];

/// Stops of the diverging ramp: far below 1, at 1, far above 1.
const SLOWER: [u8; 3] = [178, 24, 43];
const EVEN: [u8; 3] = [247, 247, 247];
const FASTER: [u8; 3] = [33, 102, 172];

pub fn categorical(i: usize) -> &'static str {
    CATEGORICAL[i % CATEGORICAL.len()]
}

/// The ramp's colour at `share` (0 to 1, held there).
pub fn sequential(share: f64) -> String {
    let share = if share.is_finite() {
        share.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let place = share * (SEQUENTIAL.len() - 1) as f64;
    let i = (place.floor() as usize).min(SEQUENTIAL.len() - 2);
    hex(mix(SEQUENTIAL[i], SEQUENTIAL[i + 1], place - i as f64))
}

/// The colour of the `i`-th of `n` ordered series, dark first; the ramp's pale yellow end is
/// left out, since it vanishes on white.
pub fn ordered(i: usize, n: usize) -> String {
    if n <= 1 {
        return sequential(0.3);
    }
    sequential(i as f64 / (n - 1) as f64 * 0.85)
}

/// A ratio's colour: white at 1, deepening to blue as `ratio` reaches `reach` (B faster) and
/// to red as it reaches 1 / `reach` (B slower), even distances on a log scale.
pub fn diverging(ratio: f64, reach: f64) -> String {
    if !(ratio.is_finite() && ratio > 0.0) {
        return hex(EVEN);
    }
    let share = (ratio.ln() / reach.ln().max(1e-9)).clamp(-1.0, 1.0);
    if share >= 0.0 {
        hex(mix(EVEN, FASTER, share))
    } else {
        hex(mix(EVEN, SLOWER, -share))
    }
}

/// Black or white, whichever reads better on `background` (a `#rrggbb` colour).
pub fn ink_on(background: &str) -> &'static str {
    let channel = |i: usize| u8::from_str_radix(&background[i..i + 2], 16).unwrap_or(0) as f64;
    let luminance = 0.299 * channel(1) + 0.587 * channel(3) + 0.114 * channel(5);
    if luminance > 140.0 {
        "#222"
    } else {
        "#fff"
    }
}

fn mix(a: [u8; 3], b: [u8; 3], t: f64) -> [u8; 3] {
    let channel = |i: usize| (a[i] as f64 + (b[i] as f64 - a[i] as f64) * t).round() as u8;
    [channel(0), channel(1), channel(2)]
}

fn hex([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sequential_ramp_runs_from_violet_to_yellow_through_its_stops() {
        assert_eq!(sequential(0.0), "#440154");
        assert_eq!(sequential(1.0), "#fde725");
        assert_eq!(sequential(0.2), "#414487", "the second of six stops");
        assert_eq!(sequential(0.1), "#43236e", "half way between the first two");
        assert_eq!(sequential(f64::NAN), "#440154");
        assert_ne!(ordered(0, 5), ordered(4, 5));
    }

    #[test]
    fn the_diverging_ramp_is_white_at_one_and_symmetric_on_a_log_scale() {
        assert_eq!(diverging(1.0, 2.0), "#f7f7f7");
        assert_eq!(diverging(2.0, 2.0), "#2166ac");
        assert_eq!(diverging(0.5, 2.0), "#b2182b");
        assert_eq!(diverging(8.0, 2.0), "#2166ac", "held at the reach");
        // √2 and 1/√2 are half way to blue and to red
        assert_eq!(diverging(2f64.sqrt(), 2.0), hex(mix(EVEN, FASTER, 0.5)));
        assert_eq!(diverging(0.5f64.sqrt(), 2.0), hex(mix(EVEN, SLOWER, 0.5)));
    }

    #[test]
    fn text_is_dark_on_light_cells_and_light_on_dark_ones() {
        assert_eq!(ink_on("#fde725"), "#222");
        assert_eq!(ink_on("#440154"), "#fff");
        assert_eq!(ink_on("#f7f7f7"), "#222");
    }
}
