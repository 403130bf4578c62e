//! The type registry: built-in wire contracts plus `.msg` files found under
//! `AMENT_PREFIX_PATH`, and resolution of a type into the tree the codec and
//! the path resolver walk (REQ-MSG-DEF).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::def::{parse_msg, ArrayKind, BaseType, MsgDef, Primitive, TypeName};
use crate::MsgError;

/// Message definitions by full name, iterated in name order.
///
/// [`TypeRegistry::builtin`] holds the wire contracts of std_msgs,
/// builtin_interfaces, geometry_msgs, sensor_msgs, nav_msgs, tf2_msgs,
/// diagnostic_msgs, rosgraph_msgs, simulation_interfaces (its messages; the
/// registry holds no services) and rcl_interfaces/Log;
/// [`TypeRegistry::with_ament_prefix_path`] adds (and overrides with) every
/// `share/<pkg>/msg/*.msg` of the prefixes on `AMENT_PREFIX_PATH`. A file
/// that does not parse (or cannot be read) is skipped with a warning: only
/// its own type becomes unknown ([`TypeRegistry::skipped`]).
#[derive(Debug, Clone, Default)]
pub struct TypeRegistry {
    defs: BTreeMap<TypeName, MsgDef>,
    /// Types whose file was skipped, with the reason (file, line, field).
    skipped: BTreeMap<TypeName, String>,
}

/// A resolved message type: its fields with every nested type resolved, as
/// the codec and the path resolver walk it. Shared by `Arc` (a nested type
/// used by several fields is resolved once per [`TypeRegistry::resolve`]).
#[derive(Debug, PartialEq)]
pub struct ResolvedType {
    /// `pkg/msg/Type`.
    pub name: TypeName,
    /// Fields in wire order.
    pub fields: Vec<ResolvedField>,
}

/// A field of a [`ResolvedType`].
#[derive(Debug, PartialEq)]
pub struct ResolvedField {
    /// The field name.
    pub name: Arc<str>,
    /// The element type.
    pub elem: Elem,
    /// Array or not.
    pub array: ArrayKind,
}

/// The element type of a resolved field.
#[derive(Debug, Clone, PartialEq)]
pub enum Elem {
    /// A primitive.
    Prim(Primitive),
    /// `string` / `string<=N` (N bytes of UTF-8).
    String(Option<usize>),
    /// `wstring` / `wstring<=N` (N UTF-16 code units).
    WString(Option<usize>),
    /// A nested message.
    Msg(Arc<ResolvedType>),
}

impl ResolvedType {
    /// The field of this name.
    pub fn field(&self, name: &str) -> Option<&ResolvedField> {
        self.fields.iter().find(|f| &*f.name == name)
    }
}

impl TypeRegistry {
    /// An empty registry.
    pub fn empty() -> Self {
        Self::default()
    }

    /// The built-in wire contracts: 118 types, generated from the ROS 2
    /// Jazzy wheels and simulation_interfaces 1.5.1 (`scripts/build_simif.sh`)
    /// by `scripts/gen_msgs_builtin.py` (tf2_msgs/TFMessage,
    /// which has no wheel, written there by hand) and held equal to the
    /// wheels' files by `tests/builtin_vs_wheels.rs`.
    pub fn builtin() -> Self {
        let mut r = Self::empty();
        for (pkg, name, text) in crate::builtin::BUILTIN {
            let def = parse_msg(pkg, name, text, &format!("<built-in {pkg}/msg/{name}>"))
                .expect("built-in definitions parse (tested)");
            r.insert(def);
        }
        r
    }

    /// The built-in types, then every `share/<pkg>/msg/*.msg` under the
    /// prefixes of the `AMENT_PREFIX_PATH` environment variable (unset or
    /// empty: the built-ins only). See [`TypeRegistry::load_prefixes`].
    ///
    /// # Errors
    /// As [`TypeRegistry::load_prefixes`].
    pub fn with_ament_prefix_path() -> Result<Self, MsgError> {
        let mut r = Self::builtin();
        if let Some(v) = std::env::var_os("AMENT_PREFIX_PATH") {
            let prefixes: Vec<PathBuf> = std::env::split_paths(&v)
                .filter(|p| !p.as_os_str().is_empty())
                .collect();
            r.load_prefixes(&prefixes)?;
        }
        Ok(r)
    }

    /// Load every `share/<pkg>/msg/*.msg` under each prefix. A loaded
    /// definition overrides one of the same name already present (a
    /// built-in one); an earlier prefix overrides a later one, as ament's
    /// search order. A prefix without `share/` is skipped. Returns the
    /// number of files loaded.
    ///
    /// A file that does not parse or cannot be read is skipped: logged at
    /// WARN (`tracing`) with its error (file, line, field), listed by
    /// [`TypeRegistry::skipped`], and resolving its type (directly or as a
    /// nested field) is an error quoting it. A definition of the same type
    /// from another file (a lower prefix, a built-in one) is kept. Other
    /// files load as usual (REQ-MSG-DEF).
    ///
    /// # Errors
    /// [`MsgError::Io`] for an unreadable `share` or `msg` directory.
    pub fn load_prefixes(&mut self, prefixes: &[PathBuf]) -> Result<usize, MsgError> {
        let mut n = 0;
        for prefix in prefixes.iter().rev() {
            n += self.load_prefix(prefix)?;
        }
        Ok(n)
    }

    fn load_prefix(&mut self, prefix: &Path) -> Result<usize, MsgError> {
        let share = prefix.join("share");
        if !share.is_dir() {
            return Ok(0);
        }
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| MsgError::Io { path, source }
        };
        let mut pkgs: Vec<PathBuf> = std::fs::read_dir(&share)
            .map_err(io(&share))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        pkgs.sort();
        let mut n = 0;
        for pkg_dir in pkgs {
            let msg_dir = pkg_dir.join("msg");
            let Some(pkg) = pkg_dir.file_name().and_then(|s| s.to_str()) else {
                continue;
            };
            if !msg_dir.is_dir() {
                continue;
            }
            let mut files: Vec<PathBuf> = std::fs::read_dir(&msg_dir)
                .map_err(io(&msg_dir))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "msg"))
                .collect();
            files.sort();
            for f in files {
                let Some(name) = f.file_stem().and_then(|s| s.to_str()) else {
                    continue;
                };
                let def = std::fs::read_to_string(&f)
                    .map_err(io(&f))
                    .and_then(|text| parse_msg(pkg, name, &text, &f.display().to_string()));
                match def {
                    Ok(def) => {
                        self.skipped.remove(&def.name);
                        self.insert(def);
                        n += 1;
                    }
                    Err(e) => {
                        let tn = TypeName::parse(&format!("{pkg}/msg/{name}"));
                        tracing::warn!(
                            "skipping the broken message definition {}: {e} (only this \
                             type is unknown; the other definitions load)",
                            f.display()
                        );
                        if let Ok(tn) = tn {
                            self.skipped.insert(tn, e.to_string());
                        }
                    }
                }
            }
        }
        Ok(n)
    }

    /// Add (or replace) a definition.
    pub fn insert(&mut self, def: MsgDef) {
        self.defs.insert(def.name.clone(), def);
    }

    /// The definition of `pkg/msg/Type` or `pkg/Type`, if present.
    pub fn get(&self, name: &str) -> Option<&MsgDef> {
        self.defs.get(&TypeName::parse(name).ok()?)
    }

    /// The `.msg` files skipped while loading prefixes (they did not parse
    /// or could not be read): `(pkg/msg/Type, the error naming file, line
    /// and field)`, in name order. A type listed here has no definition
    /// unless another file (or a built-in one) provided it.
    pub fn skipped(&self) -> impl Iterator<Item = (String, &str)> {
        self.skipped
            .iter()
            .map(|(t, e)| (t.to_string(), e.as_str()))
    }

    /// Number of definitions.
    pub fn len(&self) -> usize {
        self.defs.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }

    /// All definitions in name order.
    pub fn iter(&self) -> impl Iterator<Item = &MsgDef> {
        self.defs.values()
    }

    /// The `ros2msg` schema of `pkg/msg/Type` (or `pkg/Type`) as rosbag2
    /// writes it into an MCAP file (the MCAP `ros2` profile): the type's
    /// `.msg` text, then each nested type not written yet, depth first in
    /// name order, after a line of 80 `=` and `MSG: pkg/Type` (rosbag2_cpp's
    /// `LocalMessageDefinitionSource::get_full_text`). The texts are the
    /// compact ones of [`MsgDef::to_msg_text`] (no comments), so the schema
    /// is the wire contract, which is all a reader decodes with.
    ///
    /// # Errors
    /// Those of [`TypeRegistry::resolve`] (an unknown or incomplete type).
    pub fn ros2msg_schema(&self, name: &str) -> Result<String, MsgError> {
        self.resolve(name)?;
        let mut seen = BTreeSet::new();
        Ok(self.schema_text(&TypeName::parse(name)?, &mut seen))
    }

    /// [`TypeRegistry::ros2msg_schema`] of a resolved `tn`.
    fn schema_text(&self, tn: &TypeName, seen: &mut BTreeSet<String>) -> String {
        let def = &self.defs[tn];
        let mut out = def.to_msg_text();
        let deps: BTreeSet<(String, &TypeName)> = def
            .fields
            .iter()
            .filter_map(|f| match &f.ty.base {
                BaseType::Msg(t) => Some((format!("{}/{}", t.pkg, t.name), t)),
                _ => None,
            })
            .collect();
        for (short, t) in deps {
            if seen.insert(short.clone()) {
                out.push('\n');
                out.push_str(&"=".repeat(80));
                out.push_str("\nMSG: ");
                out.push_str(&short);
                out.push('\n');
                out.push_str(&self.schema_text(t, seen));
            }
        }
        out
    }

    /// Resolve `pkg/msg/Type` or `pkg/Type`: every nested type, transitively,
    /// must be present.
    ///
    /// # Errors
    /// [`MsgError::BadTypeName`], [`MsgError::UnknownType`] naming the type,
    /// [`MsgError::MissingNested`] naming the type, the field and the
    /// missing type (or a nesting cycle).
    pub fn resolve(&self, name: &str) -> Result<Arc<ResolvedType>, MsgError> {
        let tn = TypeName::parse(name)?;
        if !self.defs.contains_key(&tn) {
            return Err(match self.skipped.get(&tn) {
                Some(reason) => MsgError::Skipped {
                    name: name.to_string(),
                    reason: reason.clone(),
                },
                None => MsgError::UnknownType {
                    name: name.to_string(),
                },
            });
        }
        let mut done = BTreeMap::new();
        self.resolve_inner(&tn, &mut done, &mut BTreeSet::new())
    }

    fn resolve_inner(
        &self,
        tn: &TypeName,
        done: &mut BTreeMap<TypeName, Arc<ResolvedType>>,
        stack: &mut BTreeSet<TypeName>,
    ) -> Result<Arc<ResolvedType>, MsgError> {
        if let Some(r) = done.get(tn) {
            return Ok(r.clone());
        }
        let def = &self.defs[tn];
        stack.insert(tn.clone());
        let mut fields = Vec::with_capacity(def.fields.len());
        for f in &def.fields {
            let elem = match &f.ty.base {
                BaseType::Primitive(p) => Elem::Prim(*p),
                BaseType::String { bound } => Elem::String(*bound),
                BaseType::WString { bound } => Elem::WString(*bound),
                BaseType::Msg(sub) => {
                    let missing = |why| MsgError::MissingNested {
                        ty: tn.to_string(),
                        field: f.name.clone(),
                        missing: sub.to_string(),
                        why,
                    };
                    if stack.contains(sub) {
                        return Err(missing("types nest in a cycle".into()));
                    }
                    if !self.defs.contains_key(sub) {
                        return Err(missing(match self.skipped.get(sub) {
                            Some(r) => format!("its definition file was skipped (broken): {r}"),
                            None => "unknown type".into(),
                        }));
                    }
                    Elem::Msg(self.resolve_inner(sub, done, stack)?)
                }
            };
            fields.push(ResolvedField {
                name: Arc::from(f.name.as_str()),
                elem,
                array: f.ty.array,
            });
        }
        stack.remove(tn);
        let r = Arc::new(ResolvedType {
            name: tn.clone(),
            fields,
        });
        done.insert(tn.clone(), r.clone());
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_has_the_contracted_packages_and_all_resolve() {
        let r = TypeRegistry::builtin();
        assert_eq!(r.len(), 118);
        for t in [
            "std_msgs/msg/Header",
            "builtin_interfaces/msg/Time",
            "geometry_msgs/msg/TwistStamped",
            "sensor_msgs/msg/LaserScan",
            "sensor_msgs/msg/PointCloud2",
            "nav_msgs/msg/Odometry",
            "tf2_msgs/msg/TFMessage",
            "diagnostic_msgs/msg/DiagnosticArray",
            "rosgraph_msgs/msg/Clock",
            "rcl_interfaces/msg/Log",
            "simulation_interfaces/msg/EntityState",
            "simulation_interfaces/msg/SimulatorFeatures",
        ] {
            r.resolve(t).unwrap_or_else(|e| panic!("{t}: {e}"));
        }
        for d in r.iter() {
            r.resolve(&d.name.to_string()).unwrap();
        }
        let odom = r.resolve("nav_msgs/Odometry").unwrap();
        let names: Vec<&str> = odom.fields.iter().map(|f| &*f.name).collect();
        assert_eq!(names, ["header", "child_frame_id", "pose", "twist"]);
    }

    #[test]
    fn unknown_and_missing_nested_types_are_named() {
        let r = TypeRegistry::builtin();
        assert_eq!(
            r.resolve("nav_msgs/msg/Odometryy").unwrap_err().to_string(),
            "unknown message type 'nav_msgs/msg/Odometryy' (not built in and not found on AMENT_PREFIX_PATH)"
        );
        let mut r = TypeRegistry::empty();
        r.insert(parse_msg("a_msgs", "Outer", "int32 x\nb_msgs/Inner inner\n", "t").unwrap());
        assert_eq!(
            r.resolve("a_msgs/Outer").unwrap_err().to_string(),
            "a_msgs/msg/Outer field 'inner' needs b_msgs/msg/Inner: unknown type"
        );
        r.insert(parse_msg("b_msgs", "Inner", "a_msgs/Outer back\n", "t").unwrap());
        assert_eq!(
            r.resolve("a_msgs/Outer").unwrap_err().to_string(),
            "b_msgs/msg/Inner field 'back' needs a_msgs/msg/Outer: types nest in a cycle"
        );
    }

    #[test]
    fn prefixes_load_and_override_in_ament_order() {
        let tmp = std::env::temp_dir().join(format!("breakbench_msgs_reg_{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        let mk = |prefix: &str, pkg: &str, name: &str, text: &str| {
            let d = tmp.join(prefix).join("share").join(pkg).join("msg");
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join(format!("{name}.msg")), text).unwrap();
        };
        mk("first", "my_msgs", "Thing", "# mine\nfloat64 a\n");
        mk("second", "my_msgs", "Thing", "float32 a\n");
        mk("second", "std_msgs", "Header", "int32 overridden\n");
        let mut r = TypeRegistry::builtin();
        let n = r
            .load_prefixes(&[tmp.join("first"), tmp.join("second"), tmp.join("none")])
            .unwrap();
        assert_eq!(n, 3);
        assert_eq!(r.get("my_msgs/Thing").unwrap().to_msg_text(), "float64 a\n");
        assert_eq!(
            r.get("std_msgs/msg/Header").unwrap().to_msg_text(),
            "int32 overridden\n"
        );
        // A broken file is skipped: only its type is unknown, the error
        // quotes the file, line and field; its neighbours load.
        mk("bad", "my_msgs", "Broken", "int32 a\nfloat99 b\n");
        mk("bad", "my_msgs", "Fine", "my_msgs/Broken inner\nint8 c\n");
        mk("bad", "my_msgs", "Alone", "int8 c\n");
        let n = r.load_prefixes(&[tmp.join("bad")]).unwrap();
        assert_eq!(n, 2);
        let why = "share/my_msgs/msg/Broken.msg:2: field 'b': unknown type 'float99' (not a primitive, not a message type name)";
        let skipped: Vec<(String, &str)> = r.skipped().collect();
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0].0, "my_msgs/msg/Broken");
        assert!(skipped[0].1.ends_with(why), "{skipped:?}");
        r.resolve("my_msgs/msg/Alone").unwrap();
        let e = r.resolve("my_msgs/Broken").unwrap_err().to_string();
        assert!(
            e.starts_with("message type 'my_msgs/Broken' has no usable definition: its file was skipped (broken): ")
                && e.ends_with(why),
            "{e}"
        );
        let e = r.resolve("my_msgs/Fine").unwrap_err().to_string();
        assert!(
            e.starts_with("my_msgs/msg/Fine field 'inner' needs my_msgs/msg/Broken: its definition file was skipped (broken): ")
                && e.ends_with(why),
            "{e}"
        );
        // A good definition of the same type from another prefix wins.
        mk("good", "my_msgs", "Broken", "int32 a\n");
        r.load_prefixes(&[tmp.join("good")]).unwrap();
        assert_eq!(r.skipped().count(), 0);
        r.resolve("my_msgs/Fine").unwrap();
        std::fs::remove_dir_all(&tmp).unwrap();
    }
}

#[cfg(test)]
mod schema_tests {
    use super::TypeRegistry;

    /// The layout rosbag2 writes: the root, then each nested type once,
    /// depth first in name order, each after 80 `=` and `MSG: pkg/Type`.
    #[test]
    fn ros2msg_schema_concatenates_nested_types_once_depth_first() {
        let reg = TypeRegistry::builtin();
        let bar = format!("\n{}\n", "=".repeat(80));
        let s = reg.ros2msg_schema("nav_msgs/msg/Odometry").unwrap();
        let parts: Vec<&str> = s.split(&bar).collect();
        assert!(parts[0].starts_with("std_msgs/Header header\nstring child_frame_id\n"));
        let heads: Vec<&str> = parts[1..]
            .iter()
            .map(|p| p.lines().next().unwrap())
            .collect();
        assert_eq!(
            heads,
            [
                "MSG: geometry_msgs/PoseWithCovariance",
                "MSG: geometry_msgs/Pose",
                "MSG: geometry_msgs/Point",
                "MSG: geometry_msgs/Quaternion",
                "MSG: geometry_msgs/TwistWithCovariance",
                "MSG: geometry_msgs/Twist",
                "MSG: geometry_msgs/Vector3",
                "MSG: std_msgs/Header",
                "MSG: builtin_interfaces/Time",
            ]
        );
        assert_eq!(
            parts[1],
            "MSG: geometry_msgs/PoseWithCovariance\ngeometry_msgs/Pose pose\nfloat64[36] covariance\n"
        );
        let scan = reg.ros2msg_schema("sensor_msgs/LaserScan").unwrap();
        assert_eq!(scan.matches("MSG: ").count(), 2, "{scan}");
        assert!(reg.ros2msg_schema("sensor_msgs/msg/NoSuch").is_err());
    }
}
