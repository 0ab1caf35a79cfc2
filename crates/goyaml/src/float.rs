//! Floats as yaml.v3 writes them: Go's `strconv.FormatFloat(f, 'g', -1, 64)` (from
//! certgate-gofmt, the workspace's one copy of Go's formatting rules) with YAML's spellings of
//! the special values.

/// A float64 as yaml.v3 emits it (`.inf`, `-.inf`, `.nan` for the special values).
pub fn format_yaml_float(f: f64) -> String {
    match certgate_gofmt::format_float_g(f).as_str() {
        "+Inf" => ".inf".to_owned(),
        "-Inf" => "-.inf".to_owned(),
        "NaN" => ".nan".to_owned(),
        other => other.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_spells_the_special_values_its_own_way() {
        assert_eq!(format_yaml_float(f64::INFINITY), ".inf");
        assert_eq!(format_yaml_float(f64::NEG_INFINITY), "-.inf");
        assert_eq!(format_yaml_float(f64::NAN), ".nan");
        assert_eq!(format_yaml_float(1e21), "1e+21");
        assert_eq!(format_yaml_float(1.5), "1.5");
    }
}
