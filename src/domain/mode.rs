//! What a memory request asks for: save, load, or the profile.

use utoipa::ToSchema;

use super::ValidationError;

/// What a memory request asks for: `save` stores a summary, `load` returns saved ones,
/// `profile` reads or rewrites the profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ToSchema)]
#[schema(rename_all = "lowercase")]
pub enum Mode {
    Save,
    Load,
    Profile,
}

impl Mode {
    pub fn parse(raw: Option<&str>) -> Result<Self, ValidationError> {
        match raw {
            None | Some("") => Err(ValidationError::MissingMode),
            Some("save") => Ok(Self::Save),
            Some("load") => Ok(Self::Load),
            Some("profile") => Ok(Self::Profile),
            Some(_) => Err(ValidationError::UnknownMode),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_three_modes_and_nothing_else() {
        assert_eq!(Mode::parse(Some("save")), Ok(Mode::Save));
        assert_eq!(Mode::parse(Some("load")), Ok(Mode::Load));
        assert_eq!(Mode::parse(Some("profile")), Ok(Mode::Profile));
        assert_eq!(Mode::parse(None), Err(ValidationError::MissingMode));
        assert_eq!(Mode::parse(Some("")), Err(ValidationError::MissingMode));
        assert_eq!(Mode::parse(Some("Save")), Err(ValidationError::UnknownMode));
        assert_eq!(
            Mode::parse(Some("delete")),
            Err(ValidationError::UnknownMode)
        );
    }
}
