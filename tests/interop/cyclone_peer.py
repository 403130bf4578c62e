"""Interop peer: Eclipse Cyclone DDS (the C DDS under rmw_cyclonedds_cpp)
against our fault_injector started with RMW_IMPLEMENTATION=rmw_cyclonedds_cpp.

The ROS 2 types are declared here as IDL structs with their ROS 2 DDS names
(`sensor_msgs::msg::dds_::NavSatFix_` ...). Services follow rmw_cyclonedds'
mapping: topics `rq/<service>Request` / `rr/<service>Reply`, payload prefixed
by `{uint64 client_guid; int64 sequence_number}`. Prints one line per check;
exits 1 if any failed. Run by scripts/interop.sh inside a private network
namespace with ROS_DOMAIN_ID set.
"""

import os
import random
import sys
import time
from dataclasses import dataclass, field

from cyclonedds.core import Qos, Policy
from cyclonedds.domain import DomainParticipant
from cyclonedds.idl import IdlStruct
from cyclonedds.idl.types import array, float64, int8, int64, uint8, uint16, uint32, uint64
from cyclonedds.pub import DataWriter
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic
from cyclonedds.util import duration

from dds_types import Header_, Quaternion_, Time_, Vector3_  # tests/interop/dds_types.py

FAILED = []


def check(name, ok, detail=""):
    print(f"{'PASS' if ok else 'FAIL'} cyclone: {name}" + (f" ({detail})" if detail else ""), flush=True)
    if not ok:
        FAILED.append(name)


@dataclass
class NavSatStatus_(IdlStruct, typename="sensor_msgs::msg::dds_::NavSatStatus_"):
    status: int8 = 0
    service: uint16 = 0


@dataclass
class NavSatFix_(IdlStruct, typename="sensor_msgs::msg::dds_::NavSatFix_"):
    header: Header_ = field(default_factory=Header_)
    status: NavSatStatus_ = field(default_factory=NavSatStatus_)
    latitude: float64 = 0.0
    longitude: float64 = 0.0
    altitude: float64 = 0.0
    position_covariance: array[float64, 9] = field(default_factory=lambda: [0.0] * 9)
    position_covariance_type: uint8 = 0


@dataclass
class Imu_(IdlStruct, typename="sensor_msgs::msg::dds_::Imu_"):
    header: Header_ = field(default_factory=Header_)
    orientation: Quaternion_ = field(default_factory=Quaternion_)
    orientation_covariance: array[float64, 9] = field(default_factory=lambda: [0.0] * 9)
    angular_velocity: Vector3_ = field(default_factory=Vector3_)
    angular_velocity_covariance: array[float64, 9] = field(default_factory=lambda: [0.0] * 9)
    linear_acceleration: Vector3_ = field(default_factory=Vector3_)
    linear_acceleration_covariance: array[float64, 9] = field(default_factory=lambda: [0.0] * 9)


@dataclass
class FaultSpec_(IdlStruct, typename="kraken_interfaces::msg::dds_::FaultSpec_"):
    # field for field as foundation/kraken_interfaces/msg/FaultSpec.msg
    channel: str = ""
    mode: uint8 = 0
    duration_s: float64 = 0.0
    period_s: float64 = 0.0
    duty_cycle: float64 = 0.0
    random_phase: bool = False
    message_skip: uint32 = 0
    message_count: uint32 = 0
    message_every: uint32 = 0
    noise_stddev: float64 = 0.0
    covariance_scale: float64 = 0.0
    bias_rate: float64 = 0.0
    bias: float64 = 0.0
    step_at_s: float64 = 0.0
    slip_ratio: float64 = 0.0
    scale_factor: float64 = 0.0
    freeze_stamp: bool = False
    garbage_min: float64 = 0.0
    garbage_max: float64 = 0.0
    allow_non_finite: bool = False
    saturation_limit: float64 = 0.0
    loss_model: uint8 = 0
    loss_probability: float64 = 0.0
    recovery_probability: float64 = 0.0
    burst_length: uint32 = 0
    delay_s: float64 = 0.0
    jitter_s: float64 = 0.0
    probability: float64 = 0.0
    timestamp_offset_s: float64 = 0.0


@dataclass
class SetFault_Request_(IdlStruct, typename="kraken_interfaces::srv::dds_::SetFault_Request_"):
    client_guid: uint64 = 0
    sequence_number: int64 = 0
    fault: FaultSpec_ = field(default_factory=FaultSpec_)


@dataclass
class SetFault_Response_(IdlStruct, typename="kraken_interfaces::srv::dds_::SetFault_Response_"):
    client_guid: uint64 = 0
    sequence_number: int64 = 0
    success: bool = False
    message: str = ""


@dataclass
class Trigger_Request_(IdlStruct, typename="std_srvs::srv::dds_::Trigger_Request_"):
    client_guid: uint64 = 0
    sequence_number: int64 = 0
    structure_needs_at_least_one_member: uint8 = 0


@dataclass
class Trigger_Response_(IdlStruct, typename="std_srvs::srv::dds_::Trigger_Response_"):
    client_guid: uint64 = 0
    sequence_number: int64 = 0
    success: bool = False
    message: str = ""


RELIABLE = Qos(Policy.Reliability.Reliable(duration(seconds=1)), Policy.Durability.Volatile,
               Policy.History.KeepLast(10))
BEST_EFFORT = Qos(Policy.Reliability.BestEffort, Policy.Durability.Volatile, Policy.History.KeepLast(50))


def wait_matched(ents, timeout=20.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        ok = all((e.get_matched_subscriptions() if isinstance(e, DataWriter) else e.get_matched_publications())
                 for e in ents)
        if ok:
            return True
        time.sleep(0.05)
    return False


class ServiceClient:
    def __init__(self, dp, name, req_t, resp_t):
        self.w = DataWriter(dp, Topic(dp, f"rq/{name}Request", req_t), qos=RELIABLE)
        self.r = DataReader(dp, Topic(dp, f"rr/{name}Reply", resp_t), qos=RELIABLE)
        self.guid = random.getrandbits(63)
        self.seq = 0

    def call(self, req, timeout=10.0):
        self.seq += 1
        req.client_guid = self.guid
        req.sequence_number = self.seq
        self.w.write(req)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for s in self.r.take(N=10):
                # ros2-client writes the sequence number with its 32-bit halves
                # swapped (measured): accept n and n << 32.
                if s.client_guid == self.guid and s.sequence_number in (self.seq, self.seq << 32):
                    return s
            time.sleep(0.01)
        return None


def exchange(writer, make, reader, pred, timeout=10.0, rate_hz=20.0):
    seq = 0
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        writer.write(make(seq))
        seq += 1
        time.sleep(1.0 / rate_hz)
        for m in reader.take(N=50):
            if pred(m):
                return m
    return None


def fix(seq):
    return NavSatFix_(header=Header_(stamp=Time_(sec=1000 + seq), frame_id="gnss"),
                      status=NavSatStatus_(status=2, service=1), latitude=52.2297, longitude=21.0122,
                      altitude=110.5, position_covariance=[0.25, 0, 0, 0, 0.25, 0, 0, 0, 1.0],
                      position_covariance_type=2)


def imu(seq):
    return Imu_(header=Header_(stamp=Time_(sec=2000 + seq), frame_id="imu_link"),
                angular_velocity=Vector3_(z=0.125), angular_velocity_covariance=[0.25, 0, 0, 0, 0.25, 0, 0, 0, 0.25])


def main():
    dp = DomainParticipant(int(os.environ.get("ROS_DOMAIN_ID", "0")))
    gnss_w = DataWriter(dp, Topic(dp, "rt/gnss/fix_raw", NavSatFix_), qos=RELIABLE)
    gnss_r = DataReader(dp, Topic(dp, "rt/gnss/fix", NavSatFix_), qos=BEST_EFFORT)
    imu_w = DataWriter(dp, Topic(dp, "rt/imu/data_raw", Imu_), qos=BEST_EFFORT)
    imu_r = DataReader(dp, Topic(dp, "rt/imu/data", Imu_), qos=RELIABLE)
    set_c = ServiceClient(dp, "fault_injector/set_fault", SetFault_Request_, SetFault_Response_)
    clear_c = ServiceClient(dp, "fault_injector/clear_faults", Trigger_Request_, Trigger_Response_)
    if os.environ.get("EXPECT_MAPPING_MISMATCH") == "1":
        # The injector runs with the Fast DDS (enhanced) mapping: a Cyclone-style
        # request must not be understood (proves RMW_IMPLEMENTATION matters).
        ok = wait_matched([set_c.w, set_c.r])
        check("service topics matched", ok)
        r = set_c.call(SetFault_Request_(fault=FaultSpec_(channel="gnss", mode=1)), timeout=3.0)
        check("with the wrong service mapping the call gets no valid reply", r is None or not r.success,
              "got a reply" if r else "no reply")
        sys.exit(1 if FAILED else 0)
    ok = wait_matched([gnss_w, gnss_r, imu_w, imu_r, set_c.w, set_c.r, clear_c.w, clear_c.r])
    check("all topics and service topics matched with the injector", ok)
    if not ok:
        sys.exit(1)

    m = exchange(gnss_w, fix, gnss_r, lambda m: True)
    check("healthy gnss bit-exact", m is not None and m.latitude == 52.2297 and m.status.status == 2
          and list(m.position_covariance) == [0.25, 0, 0, 0, 0.25, 0, 0, 0, 1.0] and m.header.frame_id == "gnss")

    r = set_c.call(SetFault_Request_(fault=FaultSpec_(channel="gnss", mode=1)))
    check("set_fault gnss dropout over the Cyclone mapping", r is not None and r.success,
          r.message if r else "no response")
    m = exchange(gnss_w, fix, gnss_r, lambda m: m.status.status != 2)
    check("gnss dropout: status -1, covariance type 0", m is not None and m.status.status == -1
          and m.position_covariance_type == 0, f"status={m.status.status if m else None}")

    r = set_c.call(SetFault_Request_(fault=FaultSpec_(channel="imu", mode=2, covariance_scale=4.0)))
    check("set_fault imu degrade", r is not None and r.success, r.message if r else "no response")
    m = exchange(imu_w, imu, imu_r, lambda m: m.angular_velocity_covariance[0] != 0.25)
    check("imu degrade: covariance x 4 = 1.0", m is not None
          and list(m.angular_velocity_covariance) == [1.0, 0, 0, 0, 1.0, 0, 0, 0, 1.0] and m.angular_velocity.z == 0.125)

    r = set_c.call(SetFault_Request_(fault=FaultSpec_(channel="bogus", mode=1)))
    check("unknown channel rejected", r is not None and not r.success and "bogus" in r.message,
          r.message if r else "no response")

    r = clear_c.call(Trigger_Request_())
    check("clear_faults over the Cyclone mapping", r is not None and r.success, r.message if r else "no response")
    m = exchange(gnss_w, fix, gnss_r, lambda m: m.status.status == 2)
    check("gnss healthy after clear", m is not None and m.position_covariance_type == 2)
    m = exchange(imu_w, imu, imu_r, lambda m: m.angular_velocity_covariance[0] == 0.25)
    check("imu healthy after clear", m is not None)

    print(f"cyclone peer: {len(FAILED)} failed", flush=True)
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
