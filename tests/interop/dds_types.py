"""ROS 2 message types as Cyclone DDS IDL structs, shared by the interop peers.

Each struct carries its ROS 2 DDS type name (`<pkg>::msg::dds_::<Type>_`) and
its fields in `.msg` order, which is what rmw_cyclonedds puts on the wire.
Only the common building blocks live here; a peer declares the messages only
it uses next to its checks.
"""

from dataclasses import dataclass, field

from cyclonedds.idl import IdlStruct
from cyclonedds.idl.types import float64, int32, uint32


@dataclass
class Time_(IdlStruct, typename="builtin_interfaces::msg::dds_::Time_"):
    sec: int32 = 0
    nanosec: uint32 = 0


@dataclass
class Header_(IdlStruct, typename="std_msgs::msg::dds_::Header_"):
    stamp: Time_ = field(default_factory=Time_)
    frame_id: str = ""


@dataclass
class Vector3_(IdlStruct, typename="geometry_msgs::msg::dds_::Vector3_"):
    x: float64 = 0.0
    y: float64 = 0.0
    z: float64 = 0.0


@dataclass
class Quaternion_(IdlStruct, typename="geometry_msgs::msg::dds_::Quaternion_"):
    x: float64 = 0.0
    y: float64 = 0.0
    z: float64 = 0.0
    w: float64 = 1.0
