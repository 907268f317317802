//! Names: the one place each rule and action is spelled (their `as_str`),
//! and what writes and reads those names (`Display`, serde), made from it.

/// For an enum with `ALL` (every variant) and a `const fn as_str`: the
/// names as a list, `from_name`, `Display`, and with the `serde` feature
/// `Serialize` and `Deserialize` as the name.
macro_rules! spelled {
    ($type:ident) => {
        impl $type {
            /// Every name, in the order of `ALL`.
            pub const NAMES: [&'static str; $type::ALL.len()] = {
                let mut names = [""; $type::ALL.len()];
                let mut i = 0;
                while i < names.len() {
                    names[i] = $type::ALL[i].as_str();
                    i += 1;
                }
                names
            };

            /// The variant spelled `name`, if there is one.
            pub fn from_name(name: &str) -> Option<Self> {
                $type::ALL.into_iter().find(|v| v.as_str() == name)
            }
        }

        impl core::fmt::Display for $type {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        #[cfg(feature = "serde")]
        impl serde::Serialize for $type {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }

        #[cfg(feature = "serde")]
        impl<'de> serde::Deserialize<'de> for $type {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let name = alloc::string::String::deserialize(d)?;
                $type::from_name(&name)
                    .ok_or_else(|| serde::de::Error::unknown_variant(&name, &$type::NAMES))
            }
        }
    };
}

pub(crate) use spelled;
