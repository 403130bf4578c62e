//! channels.yaml and scenario files: the shipped files load, bad files fail
//! with file, line and field.

use std::path::Path;

use kraken_faults::{ChannelsConfig, FaultError, MsgKind, Reliability, Step, StepAction, StepList};
use kraken_interfaces::FaultSpec;

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

fn cfg_err(e: FaultError) -> (usize, String, String) {
    match e {
        FaultError::Config {
            line,
            field,
            message,
            path,
            ..
        } => {
            assert_eq!(path, "c.yaml");
            (line, field, message)
        }
        other => panic!("not a config error: {other}"),
    }
}

#[test]
fn shipped_channels_yaml_loads() {
    let cfg =
        ChannelsConfig::load(&Path::new(ROOT).join("faults/kraken_faults/config/channels.yaml"))
            .unwrap();
    let got: Vec<(&str, MsgKind, &str, &str)> = cfg
        .channels
        .iter()
        .map(|c| {
            (
                c.name.as_str(),
                c.kind,
                c.input_topic.as_str(),
                c.output_topic.as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("gnss", MsgKind::NavSatFix, "/gnss/fix_raw", "/gnss/fix"),
            ("imu", MsgKind::Imu, "/imu/data_raw", "/imu/data"),
            ("wheel", MsgKind::Odometry, "/wheel/odom_raw", "/wheel/odom"),
            ("scan", MsgKind::LaserScan, "/scan_raw", "/scan"),
            ("odom", MsgKind::Odometry, "/odom_raw", "/odom"),
        ]
    );
    assert_eq!(cfg.channels[0].qos.reliability, Reliability::BestEffort);
    assert_eq!(cfg.channels[0].qos.depth, 10);
    assert_eq!(
        cfg.channel("wheel")
            .unwrap()
            .tf_keepalive
            .as_ref()
            .unwrap()
            .tf_rate_hz,
        20.0
    );
    assert!(cfg.channel("odom").unwrap().tf_keepalive.is_none());
    // The actuator channel: raw Twist, its typed modes on what a base reads.
    let cv = cfg.dynamic_channel("cmd_vel").unwrap();
    assert_eq!(
        (
            cv.type_name.as_str(),
            cv.input_topic.as_str(),
            cv.output_topic.as_str(),
            cv.fault_fields.clone()
        ),
        (
            "geometry_msgs/msg/Twist",
            "/cmd_vel_nav",
            "/cmd_vel",
            vec!["linear.x".to_string(), "angular.z".to_string()]
        )
    );
    // channels_stamped.yaml: the same channels, cmd_vel as TwistStamped.
    let st = ChannelsConfig::load(
        &Path::new(ROOT).join("faults/kraken_faults/config/channels_stamped.yaml"),
    )
    .unwrap();
    assert_eq!(st.channels, cfg.channels);
    assert_eq!(st.hold_limits, cfg.hold_limits);
    let scv = st.dynamic_channel("cmd_vel").unwrap();
    assert_eq!(scv.type_name, "geometry_msgs/msg/TwistStamped");
    assert_eq!(scv.fault_fields, ["twist.linear.x", "twist.angular.z"]);
    assert_eq!(
        (&scv.input_topic, &scv.output_topic, scv.qos, scv.index),
        (&cv.input_topic, &cv.output_topic, cv.qos, cv.index)
    );
    assert_eq!(st.dynamic_channels.len(), 1);
    assert_eq!(cfg.dynamic_channels.len(), 1);
    let inj = kraken_faults::Injector::from_config(&cfg);
    assert_eq!(inj.channels().len(), 5);
    assert_eq!(
        inj.status(std::time::Duration::ZERO).channels[3].channel,
        "scan"
    );
}

const GOOD: &str = "channels:
  - name: gnss
    type: sensor_msgs/msg/NavSatFix
    input_topic: /a
    output_topic: /b
    qos: {reliability: best_effort, depth: 10}
  - name: wheel
    type: nav_msgs/msg/Odometry
    input_topic: /c
    output_topic: /d
    qos:
      reliability: reliable
      depth: 5
    tf_keepalive: {tf_rate_hz: 10.0}
";

#[test]
fn channels_errors_name_file_line_and_field() {
    assert_eq!(
        ChannelsConfig::parse(GOOD, "c.yaml")
            .unwrap()
            .channels
            .len(),
        2
    );

    let unknown_key = GOOD.replace(
        "      depth: 5\n",
        "      depth: 5\n      durability: volatile\n",
    );
    let (line, field, msg) = cfg_err(ChannelsConfig::parse(&unknown_key, "c.yaml").unwrap_err());
    assert_eq!(
        (line, field.as_str()),
        (14, "channels[1].qos.durability"),
        "{msg}"
    );
    assert!(msg.contains("unknown field `durability`"), "{msg}");

    // (nav_msgs/msg/Path, the unknown type here before REQ-FAULT-ANY-TYPE,
    // is now a dynamic channel: see `any_type_channels_are_dynamic`.)
    let unknown_type = GOOD.replace("nav_msgs/msg/Odometry", "nav_msgs/msg/NoSuchType");
    let (line, field, msg) = cfg_err(ChannelsConfig::parse(&unknown_type, "c.yaml").unwrap_err());
    assert_eq!((line, field.as_str()), (8, "channels[1].type"), "{msg}");
    assert!(msg.contains("nav_msgs/msg/NoSuchType"), "{msg}");

    let bad_reliability = GOOD.replace("reliable\n", "sometimes\n");
    let (line, field, _) = cfg_err(ChannelsConfig::parse(&bad_reliability, "c.yaml").unwrap_err());
    assert_eq!((line, field.as_str()), (12, "channels[1].qos.reliability"));

    let dup_name = GOOD.replace("name: wheel", "name: gnss");
    let (line, field, msg) = cfg_err(ChannelsConfig::parse(&dup_name, "c.yaml").unwrap_err());
    assert_eq!((line, field.as_str()), (7, "channels[1].name"), "{msg}");
    assert!(msg.contains("duplicate channel name 'gnss'"), "{msg}");

    let dup_key = GOOD.replace(
        "    input_topic: /c\n",
        "    input_topic: /c\n    input_topic: /e\n",
    );
    let (line, field, msg) = cfg_err(ChannelsConfig::parse(&dup_key, "c.yaml").unwrap_err());
    assert_eq!(line, 10, "{field}: {msg}");
    assert!(msg.contains("duplicate field `input_topic`"), "{msg}");

    let keepalive_on_gnss = GOOD.replace(
        "qos: {reliability: best_effort, depth: 10}\n",
        "qos: {reliability: best_effort, depth: 10}\n    tf_keepalive: {tf_rate_hz: 10.0}\n",
    );
    let (line, field, msg) =
        cfg_err(ChannelsConfig::parse(&keepalive_on_gnss, "c.yaml").unwrap_err());
    assert_eq!(
        (line, field.as_str()),
        (7, "channels[0].tf_keepalive"),
        "{msg}"
    );

    let loop_topic = GOOD.replace("output_topic: /d", "output_topic: /c");
    let (line, field, _) = cfg_err(ChannelsConfig::parse(&loop_topic, "c.yaml").unwrap_err());
    assert_eq!((line, field.as_str()), (10, "channels[1].output_topic"));

    let depth0 = GOOD.replace("depth: 5", "depth: 0");
    let (line, field, _) = cfg_err(ChannelsConfig::parse(&depth0, "c.yaml").unwrap_err());
    assert_eq!((line, field.as_str()), (13, "channels[1].qos.depth"));

    let (line, field, msg) =
        cfg_err(ChannelsConfig::parse("# none\nchannels: []\n", "c.yaml").unwrap_err());
    assert_eq!((line, field.as_str()), (2, "channels"), "{msg}");
    assert!(msg.contains("declares no channel"), "{msg}");

    let e = ChannelsConfig::load(Path::new("/nonexistent/channels.yaml")).unwrap_err();
    assert!(matches!(e, FaultError::Io { .. }), "{e}");
}

/// `qos.output`: absent on the shipped channels (reliable, which every
/// reader matches), parsed field by field with its defaults, and refused
/// with file, line and field when a depth or a policy is out of range.
#[test]
fn output_qos_parses_defaults_and_refuses_bad_values() {
    use kraken_faults::{Durability, OutputQosConfig};
    let out = |yaml: &str| {
        let text = GOOD.replace(
            "      depth: 5\n",
            &format!("      depth: 5\n      output: {yaml}\n"),
        );
        ChannelsConfig::parse(&text, "c.yaml").map(|c| c.channels[1].qos.output)
    };
    assert_eq!(
        ChannelsConfig::parse(GOOD, "c.yaml").unwrap().channels[1]
            .qos
            .output,
        None
    );
    assert_eq!(
        out("{reliability: best_effort}").unwrap(),
        Some(OutputQosConfig {
            reliability: Reliability::BestEffort,
            durability: Durability::Volatile,
            depth: None,
        })
    );
    assert_eq!(
        out("{durability: transient_local, depth: 1}").unwrap(),
        Some(OutputQosConfig {
            reliability: Reliability::Reliable,
            durability: Durability::TransientLocal,
            depth: Some(1),
        })
    );
    let (line, field, msg) = cfg_err(out("{depth: 0}").unwrap_err());
    assert_eq!(
        (line, field.as_str()),
        (14, "channels[1].qos.output.depth"),
        "{msg}"
    );
    let (line, field, msg) = cfg_err(out("{durability: persistent}").unwrap_err());
    assert_eq!(line, 14, "{field}: {msg}");
    assert!(msg.contains("unknown variant `persistent`"), "{msg}");
    let (line, field, msg) = cfg_err(out("{history: keep_all}").unwrap_err());
    assert_eq!(line, 14, "{field}: {msg}");
    assert!(msg.contains("unknown field `history`"), "{msg}");
}

#[test]
fn shipped_scenarios_parse() {
    let kill = StepList::load(&Path::new(ROOT).join("scenarios/kill_gnss.yaml")).unwrap();
    assert_eq!(kill.name, "kill_gnss");
    assert_eq!(kill.steps.len(), 3);
    let s = &kill.steps[0];
    assert_eq!((s.action, s.at_s), (StepAction::SetFault, 5.0));
    assert_eq!(
        s.to_fault_spec().unwrap(),
        FaultSpec::new("gnss", FaultSpec::DROPOUT)
    );
    assert_eq!(
        (kill.steps[1].action, kill.steps[1].at_s),
        (StepAction::ClearFaults, 25.0)
    );

    let spoof = StepList::load(&Path::new(ROOT).join("scenarios/gnss_spoof.yaml")).unwrap();
    let spec = spoof.steps[0].to_fault_spec().unwrap();
    assert_eq!(
        spec,
        FaultSpec {
            bias_rate: 0.2,
            duration_s: 40.0,
            ..FaultSpec::new("gnss", FaultSpec::BIAS_RAMP)
        }
    );
    // The spec is accepted by the shipped channels.
    let cfg =
        ChannelsConfig::load(&Path::new(ROOT).join("faults/kraken_faults/config/channels.yaml"))
            .unwrap();
    let mut inj = kraken_faults::Injector::from_config(&cfg);
    inj.set_fault(&spec, std::time::Duration::from_secs(5))
        .unwrap();
    assert!(
        spoof.steps[1].to_fault_spec().is_err(),
        "a wait step carries no fault"
    );
}

const SCEN: &str = "name: t
steps:
  - label: a
    action: set_fault
    channel: imu
    mode: bias
    bias: 0.1
    at_s: 1.0
  - {label: b, action: clear_faults, at_s: 2.0}
";

#[test]
fn bad_scenarios_error_with_line_and_field() {
    assert_eq!(
        StepList::parse(SCEN, "c.yaml").unwrap().steps[0]
            .to_fault_spec()
            .unwrap()
            .bias,
        0.1
    );

    let bad_mode = SCEN.replace("mode: bias\n", "mode: wobble\n");
    let (line, field, msg) = cfg_err(StepList::parse(&bad_mode, "c.yaml").unwrap_err());
    assert_eq!((line, field.as_str()), (6, "steps[0].mode"), "{msg}");
    assert!(msg.contains("unknown fault mode `wobble`"), "{msg}");

    let bad_field = SCEN.replace("bias: 0.1\n", "bias_m: 0.1\n");
    let (line, field, msg) = cfg_err(StepList::parse(&bad_field, "c.yaml").unwrap_err());
    assert_eq!((line, field.as_str()), (7, "steps[0].bias_m"), "{msg}");

    let bad_action = SCEN.replace("clear_faults", "reboot");
    let (line, field, _) = cfg_err(StepList::parse(&bad_action, "c.yaml").unwrap_err());
    assert_eq!((line, field.as_str()), (9, "steps[1].action"));

    let no_channel = SCEN.replace("    channel: imu\n", "");
    let (line, field, _) = cfg_err(StepList::parse(&no_channel, "c.yaml").unwrap_err());
    assert_eq!((line, field.as_str()), (3, "steps[0].channel"));

    let backwards = SCEN.replace("at_s: 2.0", "at_s: 0.5");
    let (line, field, _) = cfg_err(StepList::parse(&backwards, "c.yaml").unwrap_err());
    assert_eq!((line, field.as_str()), (9, "steps[1].at_s"));

    // Built in code, an unknown mode name is caught by to_fault_spec.
    let step = Step {
        label: "x".into(),
        action: StepAction::SetFault,
        channel: Some("gnss".into()),
        mode: Some("wobble".into()),
        ..Default::default()
    };
    assert!(matches!(step.to_fault_spec(), Err(FaultError::UnknownModeName(n)) if n == "wobble"));
}

/// Review repro: imu `output_topic: /gnss/fix` (another channel's output) and
/// `/gnss/fix raw!` were accepted by the loader. Both now fail with the line
/// of the offending topic and its field.
#[test]
fn channels_topic_clashes_and_bad_names_name_line_and_field() {
    // Line 10 is wheel's output_topic (line 1 "channels:", wheel's item at 7).
    let same_output = GOOD.replace("output_topic: /d", "output_topic: /b");
    let (line, field, msg) = cfg_err(ChannelsConfig::parse(&same_output, "c.yaml").unwrap_err());
    assert_eq!(
        (line, field.as_str()),
        (10, "channels[1].output_topic"),
        "{msg}"
    );
    assert!(
        msg.contains("'/b'") && msg.contains("channels[0] ('gnss').output_topic"),
        "{msg}"
    );

    let output_is_other_input = GOOD.replace("output_topic: /d", "output_topic: /a");
    let (line, field, msg) =
        cfg_err(ChannelsConfig::parse(&output_is_other_input, "c.yaml").unwrap_err());
    assert_eq!(
        (line, field.as_str()),
        (10, "channels[1].output_topic"),
        "{msg}"
    );
    assert!(msg.contains("channels[0] ('gnss').input_topic"), "{msg}");

    // Line 9 is wheel's input_topic; line 4 gnss's.
    let input_is_other_output = GOOD.replace("input_topic: /c", "input_topic: /b");
    let (line, field, msg) =
        cfg_err(ChannelsConfig::parse(&input_is_other_output, "c.yaml").unwrap_err());
    assert_eq!(
        (line, field.as_str()),
        (9, "channels[1].input_topic"),
        "{msg}"
    );

    let bad_name = GOOD.replace("input_topic: /a", "input_topic: /gnss/fix raw!");
    let (line, field, msg) = cfg_err(ChannelsConfig::parse(&bad_name, "c.yaml").unwrap_err());
    assert_eq!(
        (line, field.as_str()),
        (4, "channels[0].input_topic"),
        "{msg}"
    );
    assert!(msg.contains("' '"), "{msg}");

    let digit = GOOD.replace("output_topic: /d", "output_topic: /robot/2d");
    let (line, field, msg) = cfg_err(ChannelsConfig::parse(&digit, "c.yaml").unwrap_err());
    assert_eq!(
        (line, field.as_str()),
        (10, "channels[1].output_topic"),
        "{msg}"
    );
    assert!(msg.contains("token '2d'"), "{msg}");
}

#[test]
fn topic_name_rules() {
    use kraken_faults::check_topic_name as ok;
    for good in [
        "/gnss/fix",
        "gnss/fix",
        "~/status",
        "~",
        "/a_b/c1",
        "/{node}/x",
        "scan",
    ] {
        assert!(ok(good).is_ok(), "{good}: {:?}", ok(good));
    }
    for bad in [
        "",
        "/",
        "/gnss/fix raw!",
        "/a//b",
        "/a/",
        "/a__b",
        "/1a",
        "/a/9",
        "a~b",
        "~a",
        "/{a",
        "/a}",
        "/{a/b}",
        "/{{a}}",
        "/a-b",
    ] {
        assert!(ok(bad).is_err(), "{bad} accepted");
    }
}

/// REQ-FAULT-ANY-TYPE: a `type` other than the four typed kinds is a
/// dynamic channel when the registry knows it (built-in or share/<pkg>/msg
/// on AMENT_PREFIX_PATH), else an error naming file, line, column and field.
#[test]
fn any_type_channels_are_dynamic() {
    let text = "\
channels:
  - name: gnss
    type: sensor_msgs/msg/NavSatFix
    input_topic: /gnss/fix_raw
    output_topic: /gnss/fix
    qos: {reliability: best_effort, depth: 10}
  - name: sonar
    type: sensor_msgs/Range
    input_topic: /sonar_raw
    output_topic: /sonar
    qos: {reliability: reliable, depth: 5}
    hold_limits: {max_held_messages: 100}
";
    let cfg = ChannelsConfig::parse(text, "c.yaml").unwrap();
    assert_eq!(cfg.channels.len(), 1);
    assert_eq!(cfg.channels[0].kind, MsgKind::NavSatFix);
    let d = &cfg.dynamic_channels[0];
    assert_eq!(
        (d.name.as_str(), d.type_name.as_str(), d.index),
        ("sonar", "sensor_msgs/msg/Range", 1)
    );
    assert_eq!(cfg.dynamic_hold_limits_of(d).max_held_messages, 100);
    assert_eq!(cfg.dynamic_channel("sonar"), Some(d));

    // Checks span both kinds: a duplicate name, a shared output.
    let dup = text.replace("name: sonar", "name: gnss");
    let (line, field, msg) = cfg_err(ChannelsConfig::parse(&dup, "c.yaml").unwrap_err());
    assert_eq!((line, field.as_str()), (7, "channels[1].name"), "{msg}");
    let clash = text.replace("output_topic: /sonar", "output_topic: /gnss/fix");
    let (line, field, _) = cfg_err(ChannelsConfig::parse(&clash, "c.yaml").unwrap_err());
    assert_eq!((line, field.as_str()), (10, "channels[1].output_topic"));
    // tf_keepalive belongs to odometry channels only.
    let ka = text.replace(
        "depth: 5}\n",
        "depth: 5}\n    tf_keepalive: {tf_rate_hz: 10.0}\n",
    );
    let (_, field, msg) = cfg_err(ChannelsConfig::parse(&ka, "c.yaml").unwrap_err());
    assert_eq!(field, "channels[1].tf_keepalive", "{msg}");
    assert!(msg.contains("sensor_msgs/msg/Range"), "{msg}");

    // An unknown type: file:line:column, the field, the type.
    let unknown = text.replace("sensor_msgs/Range", "sensor_msgs/msg/Sonar");
    let e = ChannelsConfig::parse(&unknown, "c.yaml").unwrap_err();
    let shown = e.to_string();
    assert!(
        shown.starts_with("c.yaml:8:5: channels[1].type: "),
        "{shown}"
    );
    assert!(shown.contains("'sensor_msgs/msg/Sonar'"), "{shown}");
    // Not a type name at all.
    let bad = text.replace("sensor_msgs/Range", "\"not a type\"");
    let (line, field, _) = cfg_err(ChannelsConfig::parse(&bad, "c.yaml").unwrap_err());
    assert_eq!((line, field.as_str()), (8, "channels[1].type"));

    // A type from a share/<pkg>/msg folder (as AMENT_PREFIX_PATH gives it).
    let dir = std::env::temp_dir().join(format!("kraken-any-type-{}", std::process::id()));
    let msg_dir = dir.join("share/my_pkg/msg");
    std::fs::create_dir_all(&msg_dir).unwrap();
    std::fs::write(
        msg_dir.join("Wind.msg"),
        "std_msgs/Header header\nfloat64 speed_mps\n",
    )
    .unwrap();
    let mut reg = breakbench_msgs::TypeRegistry::builtin();
    reg.load_prefixes(std::slice::from_ref(&dir)).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    let wind = text.replace("sensor_msgs/Range", "my_pkg/msg/Wind");
    let cfg = ChannelsConfig::parse_with(&wind, "c.yaml", &reg).unwrap();
    assert_eq!(cfg.dynamic_channels[0].type_name, "my_pkg/msg/Wind");
    assert!(
        ChannelsConfig::parse_with(&wind, "c.yaml", &breakbench_msgs::TypeRegistry::builtin())
            .is_err()
    );
}

/// The shipped any-type example loads: three typed, six dynamic channels;
/// under use_sim_time the node's clock is the clock channel's input.
#[test]
fn shipped_any_type_example_loads() {
    let p = Path::new(ROOT).join("faults/kraken_faults/config/channels_any_type.yaml");
    let text = std::fs::read_to_string(&p).unwrap();
    // Without the shipped ament prefix the custom type is unknown: an error
    // at that channel's `type` naming the type.
    let e =
        ChannelsConfig::parse_with(&text, "any.yaml", &breakbench_msgs::TypeRegistry::builtin())
            .unwrap_err()
            .to_string();
    assert!(
        e.starts_with("any.yaml:")
            && e.contains("channels[8].type")
            && e.contains("lifecycle_msgs/msg/TransitionEvent"),
        "{e}"
    );
    let mut reg = breakbench_msgs::TypeRegistry::builtin();
    reg.load_prefixes(&[Path::new(ROOT).join("faults/kraken_faults/tests/ament")])
        .unwrap();
    let cfg = ChannelsConfig::parse_with(&text, "any.yaml", &reg).unwrap();
    let typed: Vec<&str> = cfg.channels.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(typed, ["imu", "scan", "odom"]);
    // The actuator channel: raw Twist, its typed modes on what a base reads.
    let cv = cfg.dynamic_channel("cmd_vel").unwrap();
    assert_eq!(
        (
            cv.input_topic.as_str(),
            cv.output_topic.as_str(),
            cv.fault_fields.clone()
        ),
        (
            "/cmd_vel_nav",
            "/cmd_vel",
            vec!["linear.x".to_string(), "angular.z".to_string()]
        )
    );
    let dynamic: Vec<(&str, &str)> = cfg
        .dynamic_channels
        .iter()
        .map(|c| (c.name.as_str(), c.type_name.as_str()))
        .collect();
    assert_eq!(
        dynamic,
        [
            ("sonar", "sensor_msgs/msg/Range"),
            ("battery", "sensor_msgs/msg/BatteryState"),
            ("cmd_vel", "geometry_msgs/msg/Twist"),
            ("clock", "rosgraph_msgs/msg/Clock"),
            ("tf", "tf2_msgs/msg/TFMessage"),
            ("transition_event", "lifecycle_msgs/msg/TransitionEvent")
        ]
    );
    let src = kraken_faults::clock_source(&cfg, None, |n| n.to_string()).unwrap();
    assert_eq!(
        (src.resolved.as_str(), src.channel),
        ("/clock_raw", Some(3))
    );
}

/// A broken .msg on AMENT_PREFIX_PATH makes only its own type unknown: a
/// channel of another type from the same prefix loads, and a channel of the
/// broken type is an error at its `type` that quotes the skipped file.
#[test]
fn a_broken_msg_file_only_makes_its_own_type_unknown() {
    let tmp = std::env::temp_dir().join(format!("kraken_broken_msg_{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let d = tmp.join("share/my_msgs/msg");
    std::fs::create_dir_all(&d).unwrap();
    std::fs::write(d.join("Good.msg"), "float64 level\n").unwrap();
    std::fs::write(d.join("Bad.msg"), "float64 level\nfloat99 oops\n").unwrap();
    let mut reg = breakbench_msgs::TypeRegistry::builtin();
    assert_eq!(reg.load_prefixes(std::slice::from_ref(&tmp)).unwrap(), 1);
    let good = "channels:\n  - name: g\n    type: my_msgs/msg/Good\n    input_topic: /a\n    output_topic: /b\n    qos: {reliability: reliable, depth: 10}\n";
    let cfg = ChannelsConfig::parse_with(good, "c.yaml", &reg).unwrap();
    assert_eq!(cfg.dynamic_channels[0].type_name, "my_msgs/msg/Good");
    let bad = format!("{good}  - name: b\n    type: my_msgs/Bad\n    input_topic: /c\n    output_topic: /d\n    qos: {{reliability: reliable, depth: 10}}\n");
    let e = ChannelsConfig::parse_with(&bad, "c.yaml", &reg)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("c.yaml:8:5: channels[1].type: "), "{e}");
    assert!(
        e.contains("its file was skipped (broken)")
            && e.ends_with("share/my_msgs/msg/Bad.msg:2: field 'oops': unknown type 'float99' (not a primitive, not a message type name)"),
        "{e}"
    );
    std::fs::remove_dir_all(&tmp).unwrap();
}

/// `relay: raw` hosts a typed kind as a dynamic channel (raw CDR through a
/// fault stack); `relay: typed` is the default and refused on other types.
#[test]
fn relay_raw_makes_a_typed_kind_dynamic() {
    let text = "\
channels:
  - name: imu
    type: sensor_msgs/msg/Imu
    input_topic: /imu/data_raw
    output_topic: /imu/data
    qos: {reliability: best_effort, depth: 50}
  - name: imu_any
    type: sensor_msgs/msg/Imu
    relay: raw
    input_topic: /imu_any/data_raw
    output_topic: /imu_any/data
    qos: {reliability: best_effort, depth: 50}
";
    let cfg = ChannelsConfig::parse(text, "c.yaml").unwrap();
    assert_eq!(cfg.channels.len(), 1);
    assert_eq!(cfg.channels[0].kind, MsgKind::Imu);
    let d = &cfg.dynamic_channels[0];
    assert_eq!(
        (d.name.as_str(), d.type_name.as_str(), d.index),
        ("imu_any", "sensor_msgs/msg/Imu", 1)
    );
    // Explicit `typed` is the default.
    let typed = text.replace("relay: raw", "relay: typed");
    let cfg = ChannelsConfig::parse(&typed, "c.yaml").unwrap();
    assert_eq!((cfg.channels.len(), cfg.dynamic_channels.len()), (2, 0));
    // `typed` on a type that has no typed path.
    let range = typed.replace(
        "type: sensor_msgs/msg/Imu\n    relay",
        "type: sensor_msgs/msg/Range\n    relay",
    );
    let (line, field, msg) = cfg_err(ChannelsConfig::parse(&range, "c.yaml").unwrap_err());
    assert_eq!((line, field.as_str()), (9, "channels[1].relay"), "{msg}");
    assert!(msg.contains("sensor_msgs/msg/Range"), "{msg}");
    // An unknown relay.
    let bad = text.replace("relay: raw", "relay: bytes");
    let (line, _, msg) = cfg_err(ChannelsConfig::parse(&bad, "c.yaml").unwrap_err());
    assert_eq!(line, 9, "{msg}");
    // No TF keep-alive on a raw odometry channel.
    let odom = text
        .replace("sensor_msgs/msg/Imu", "nav_msgs/msg/Odometry")
        .replace(
            "relay: raw\n",
            "relay: raw\n    tf_keepalive: {tf_rate_hz: 10.0}\n",
        );
    let (_, field, msg) = cfg_err(ChannelsConfig::parse(&odom, "c.yaml").unwrap_err());
    assert_eq!(field, "channels[1].tf_keepalive", "{msg}");
    assert!(msg.contains("relay: raw"), "{msg}");
}

/// The any-type benchmark's channels: imu and scan typed, imu_any and
/// scan_any the same types relayed raw.
#[test]
fn shipped_bench_any_type_loads() {
    let cfg = ChannelsConfig::load(
        &Path::new(ROOT).join("faults/kraken_faults/config/bench_any_type.yaml"),
    )
    .unwrap();
    let typed: Vec<(&str, MsgKind)> = cfg
        .channels
        .iter()
        .map(|c| (c.name.as_str(), c.kind))
        .collect();
    assert_eq!(typed, [("imu", MsgKind::Imu), ("scan", MsgKind::LaserScan)]);
    let raw: Vec<(&str, &str)> = cfg
        .dynamic_channels
        .iter()
        .map(|c| (c.name.as_str(), c.type_name.as_str()))
        .collect();
    assert_eq!(
        raw,
        [
            ("imu_any", "sensor_msgs/msg/Imu"),
            ("scan_any", "sensor_msgs/msg/LaserScan")
        ]
    );
}

/// `fault_fields`: only on raw channels, each a numeric path of the type,
/// none twice; refused at the field's line.
#[test]
fn fault_fields_are_checked_at_load() {
    let reg = breakbench_msgs::TypeRegistry::builtin();
    let base = "channels:
  - name: cmd_vel
    type: geometry_msgs/msg/Twist
    input_topic: /cmd_vel_nav
    output_topic: /cmd_vel
    qos: {reliability: reliable, depth: 10}
    fault_fields: FIELDS
";
    let ok = ChannelsConfig::parse_with(
        &base.replace("FIELDS", "[linear.x, angular.z]"),
        "c.yaml",
        &reg,
    )
    .unwrap();
    assert_eq!(
        ok.dynamic_channels[0].fault_fields,
        ["linear.x", "angular.z"]
    );
    for (fields, want_field, want) in [
        (
            "[linear.x, linear.q]",
            "channels[0].fault_fields[1]",
            "linear.q",
        ),
        (
            "[linear]",
            "channels[0].fault_fields[0]",
            "not a numeric field path",
        ),
        (
            "[angular.z, angular.z]",
            "channels[0].fault_fields[1]",
            "listed twice",
        ),
    ] {
        let (line, field, msg) = cfg_err(
            ChannelsConfig::parse_with(&base.replace("FIELDS", fields), "c.yaml", &reg)
                .unwrap_err(),
        );
        assert_eq!((line, field.as_str()), (7, want_field), "{fields}: {msg}");
        assert!(msg.contains(want), "{fields}: {msg}");
    }
    let typed = base
        .replace("geometry_msgs/msg/Twist", "sensor_msgs/msg/NavSatFix")
        .replace("FIELDS", "[latitude]");
    let (line, field, msg) =
        cfg_err(ChannelsConfig::parse_with(&typed, "c.yaml", &reg).unwrap_err());
    assert_eq!((line, field.as_str()), (7, "channels[0].fault_fields"));
    assert!(msg.contains("only raw channels"), "{msg}");
}
