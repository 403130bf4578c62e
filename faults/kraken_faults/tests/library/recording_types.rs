//! kraken_interfaces' own messages are known to the built-in registry (no
//! ROS 2 install): the dynamic codec reads what the typed serde encoder
//! writes, field for field, and writes the same bytes back; their
//! `ros2msg` schemas name every nested type (REQ-REC-EVENTS).

use breakbench_msgs::{decode, encode, encode_serde, Value};
use kraken_faults::dynamic::builtin_registry;
use kraken_interfaces::ros::Time;
use kraken_interfaces::{ChannelFaultStatus, FaultSpec, FaultStatus, RunEvent};

fn field<'v>(v: &'v Value, name: &str) -> &'v Value {
    match v {
        Value::Struct(f) => &f.iter().find(|(n, _)| &**n == name).unwrap().1,
        other => panic!("not a struct: {other:?}"),
    }
}

#[test]
fn a_run_event_decodes_dynamically_as_the_typed_encoder_wrote_it() {
    let reg = builtin_registry();
    let ty = reg.resolve("kraken_interfaces/msg/RunEvent").unwrap();
    let ev = RunEvent {
        stamp: Time {
            sec: 12,
            nanosec: 340_000_000,
        },
        kind: RunEvent::APPLIED,
        channel: "scan".into(),
        name: "latency_s".into(),
        outcome: String::new(),
        detail: "delay delay_s = 0.4".into(),
    };
    let bytes = encode_serde("kraken_interfaces/msg/RunEvent", &ev).unwrap();
    let v = decode(&ty, &bytes).unwrap();
    assert_eq!(field(field(&v, "stamp"), "sec"), &Value::I32(12));
    assert_eq!(
        field(field(&v, "stamp"), "nanosec"),
        &Value::U32(340_000_000)
    );
    assert_eq!(field(&v, "kind"), &Value::U8(2));
    assert_eq!(field(&v, "channel"), &Value::String("scan".into()));
    assert_eq!(field(&v, "name"), &Value::String("latency_s".into()));
    assert_eq!(field(&v, "outcome"), &Value::String(String::new()));
    assert_eq!(
        field(&v, "detail"),
        &Value::String("delay delay_s = 0.4".into())
    );
    assert_eq!(encode(&ty, &v).unwrap(), bytes);
    let schema = reg
        .ros2msg_schema("kraken_interfaces/msg/RunEvent")
        .unwrap();
    assert!(schema.starts_with("uint8 TRIGGER=0\n"), "{schema}");
    assert!(
        schema.contains("\nMSG: builtin_interfaces/Time\n"),
        "{schema}"
    );
}

#[test]
fn a_fault_status_decodes_dynamically_as_the_typed_encoder_wrote_it() {
    let reg = builtin_registry();
    let ty = reg.resolve("kraken_interfaces/msg/FaultStatus").unwrap();
    let st = FaultStatus {
        stamp: Time { sec: 3, nanosec: 5 },
        enabled: true,
        channels: vec![ChannelFaultStatus {
            channel: "odom".into(),
            fault: FaultSpec {
                scale_factor: 1.2,
                ..FaultSpec::new("odom", FaultSpec::SCALE)
            },
            active: true,
            messages_in: 7,
            messages_faulted: 6,
            ..Default::default()
        }],
    };
    let bytes = encode_serde("kraken_interfaces/msg/FaultStatus", &st).unwrap();
    let v = decode(&ty, &bytes).unwrap();
    let Value::Seq(chs) = field(&v, "channels") else {
        panic!("channels: {v:?}")
    };
    assert_eq!(chs.len(), 1);
    assert_eq!(field(&chs[0], "messages_faulted"), &Value::U64(6));
    assert_eq!(
        field(field(&chs[0], "fault"), "scale_factor"),
        &Value::F64(1.2)
    );
    assert_eq!(encode(&ty, &v).unwrap(), bytes);
    let schema = reg
        .ros2msg_schema("kraken_interfaces/msg/FaultStatus")
        .unwrap();
    for nested in ["ChannelFaultStatus", "FaultSpec"] {
        assert!(
            schema.contains(&format!("\nMSG: kraken_interfaces/{nested}\n")),
            "{schema}"
        );
    }
}
