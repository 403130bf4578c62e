//! The channels file's topics as the node resolves them (namespace,
//! `--ros-args` remapping): [`ChannelsConfig::parse`] compares topics as
//! written, so `/scan_raw` and `scan_raw` pass it as two topics although in
//! the root namespace they are one. [`check_resolved_topics`] repeats the
//! topic rules on the resolved names, before the node touches DDS
//! (REQ-FAULT-ANY-TYPE: two types on one input topic are otherwise only a
//! rustdds ERROR line; an output that resolves to the channel's own input
//! is a relay loop).

use std::collections::BTreeSet;
use std::path::Path;

use crate::config::{semantic, ChannelsConfig};
use crate::FaultError;

/// One channel in file order: index in the file's `channels` list, name,
/// message type, topics as written and as resolved.
struct Entry<'a> {
    index: usize,
    name: &'a str,
    ty: &'a str,
    input: (&'a str, String),
    output: (&'a str, String),
}

fn entries<'a>(cfg: &'a ChannelsConfig, resolve: &dyn Fn(&str) -> String) -> Vec<Entry<'a>> {
    let dynamic: BTreeSet<usize> = cfg.dynamic_channels.iter().map(|c| c.index).collect();
    // The typed channels take the file positions the dynamic ones leave.
    let mut free = (0..).filter(|i| !dynamic.contains(i));
    let mut out: Vec<Entry<'a>> = cfg
        .channels
        .iter()
        .map(|c| Entry {
            index: free.next().expect("unbounded"),
            name: &c.name,
            ty: c.kind.ros_type(),
            input: (&c.input_topic, resolve(&c.input_topic)),
            output: (&c.output_topic, resolve(&c.output_topic)),
        })
        .chain(cfg.dynamic_channels.iter().map(|c| Entry {
            index: c.index,
            name: &c.name,
            ty: &c.type_name,
            input: (&c.input_topic, resolve(&c.input_topic)),
            output: (&c.output_topic, resolve(&c.output_topic)),
        }))
        .collect();
    out.sort_by_key(|e| e.index);
    out
}

/// Checks the topics of `cfg` (parsed from `text` read from `path`) after
/// `resolve`, the node's name resolution (`RosArgs::resolve`: namespace,
/// `~/`, remapping): no two channels' outputs resolve to one topic, no
/// output resolves to any channel's input (its own included: the injector
/// would feed itself), and two channels whose inputs resolve to one topic
/// have one message type.
///
/// # Errors
/// [`FaultError::Config`] at the later channel's `input_topic` or
/// `output_topic` (file, line, field), naming both spellings and the
/// resolved topic.
pub fn check_resolved_topics(
    cfg: &ChannelsConfig,
    path: &str,
    text: &str,
    resolve: impl Fn(&str) -> String,
) -> Result<(), FaultError> {
    let es = entries(cfg, &resolve);
    for (k, c) in es.iter().enumerate() {
        let err = |field: &str, message: String| {
            Err(semantic(
                path,
                text,
                format!("channels[{}].{field}", c.index),
                message,
            ))
        };
        if c.output.1 == c.input.1 {
            return err(
                "output_topic",
                format!(
                    "'{}' resolves to '{}', as input_topic '{}' does (namespace, remapping): the \
                     injector would feed itself",
                    c.output.0, c.output.1, c.input.0
                ),
            );
        }
        for o in &es[..k] {
            let clash = if c.output.1 == o.output.1 {
                Some(("output_topic", c.output.0, "output_topic", o.output.0))
            } else if c.output.1 == o.input.1 {
                Some(("output_topic", c.output.0, "input_topic", o.input.0))
            } else if c.input.1 == o.output.1 {
                Some(("input_topic", c.input.0, "output_topic", o.output.0))
            } else {
                None
            };
            if let Some((mine, written, theirs, their_written)) = clash {
                let resolved = if mine == "output_topic" {
                    &c.output.1
                } else {
                    &c.input.1
                };
                return err(
                    mine,
                    format!(
                        "'{written}' resolves to '{resolved}', as channels[{}] ('{}').{theirs} \
                         '{their_written}' does (namespace, remapping): each channel needs its \
                         own output, distinct from every input",
                        o.index, o.name
                    ),
                );
            }
            if c.input.1 == o.input.1 && c.ty != o.ty {
                return err(
                    "input_topic",
                    format!(
                        "'{}' resolves to '{}', as channels[{}] ('{}').input_topic '{}' with type \
                         {} does (namespace, remapping); this channel is {}: a topic carries one \
                         message type",
                        c.input.0, c.input.1, o.index, o.name, o.input.0, o.ty, c.ty
                    ),
                );
            }
        }
    }
    Ok(())
}

impl ChannelsConfig {
    /// Reads and parses the file at `path` ([`ChannelsConfig::parse`]),
    /// then checks its topics as the node resolves them
    /// ([`check_resolved_topics`]).
    ///
    /// # Errors
    /// [`FaultError::Io`] when it cannot be read, else as
    /// [`ChannelsConfig::parse`] and [`check_resolved_topics`].
    pub fn load_resolved(
        path: &Path,
        resolve: impl Fn(&str) -> String,
    ) -> Result<Self, FaultError> {
        let p = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| FaultError::Io {
            path: p.clone(),
            source,
        })?;
        let cfg = Self::parse(&text, &p)?;
        check_resolved_topics(&cfg, &p, &text, resolve)?;
        Ok(cfg)
    }
}
