//! The cluster recipes of docs/scale-out.md, checked without a cluster: the
//! Kubernetes manifests parse and carry the fields an Indexed Job, its shared
//! volume and the merge Job need, consistently (one shard count, one claim,
//! the merge naming every shard directory); the Slurm scripts pass `bash -n`
//! and array over the same shard count; the Dockerfile is multi-stage; and
//! the shard and merge command lines are accepted by the real binary (run
//! with a zero run budget, so nothing executes).

use crate::common;
use common::root;
use std::path::Path;
use std::process::Command;

use serde::Deserialize;
use serde_yaml_ng::Value;

fn text(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn docs(rel: &str) -> Vec<Value> {
    serde_yaml_ng::Deserializer::from_str(&text(rel))
        .map(|d| Value::deserialize(d).unwrap_or_else(|e| panic!("{rel}: {e}")))
        .collect()
}

/// The value at the dotted `path` (`[i]` for sequence items).
fn at<'a>(v: &'a Value, path: &str) -> &'a Value {
    let mut cur = v;
    for part in path.split('.') {
        let (key, idx) = match part.split_once('[') {
            Some((k, i)) => (k, Some(i.trim_end_matches(']').parse::<usize>().unwrap())),
            None => (part, None),
        };
        cur = cur
            .get(key)
            .unwrap_or_else(|| panic!("missing field {path} (at {key})"));
        if let Some(i) = idx {
            cur = cur
                .get(i)
                .unwrap_or_else(|| panic!("missing field {path} (at {key}[{i}])"));
        }
    }
    cur
}

fn s<'a>(v: &'a Value, path: &str) -> &'a str {
    at(v, path)
        .as_str()
        .unwrap_or_else(|| panic!("{path} is not a string"))
}

fn u(v: &Value, path: &str) -> u64 {
    at(v, path)
        .as_u64()
        .unwrap_or_else(|| panic!("{path} is not an integer"))
}

/// The claim the pod template mounts at `/results`.
fn results_claim(job: &Value) -> String {
    let spec = at(job, "spec.template.spec");
    let mount = at(spec, "containers[0].volumeMounts")
        .as_sequence()
        .unwrap()
        .iter()
        .find(|m| s(m, "mountPath") == "/results")
        .expect("a volume mounted at /results");
    let name = s(mount, "name");
    let vol = at(spec, "volumes")
        .as_sequence()
        .unwrap()
        .iter()
        .find(|v| s(v, "name") == name)
        .expect("the mounted volume is declared");
    s(vol, "persistentVolumeClaim.claimName").to_string()
}

const SHARDS: u64 = 4;

#[test]
fn kubernetes_indexed_job_pvc_and_merge_job_have_the_required_fields() {
    let d = docs("docs/k8s/shards-job.yaml");
    assert_eq!(d.len(), 2);
    let (pvc, job) = (&d[0], &d[1]);
    assert_eq!(s(pvc, "apiVersion"), "v1");
    assert_eq!(s(pvc, "kind"), "PersistentVolumeClaim");
    let claim = s(pvc, "metadata.name");
    assert!(at(pvc, "spec.accessModes")
        .as_sequence()
        .unwrap()
        .iter()
        .any(|m| m.as_str() == Some("ReadWriteMany")));
    assert!(!s(pvc, "spec.resources.requests.storage").is_empty());

    assert_eq!(s(job, "apiVersion"), "batch/v1");
    assert_eq!(s(job, "kind"), "Job");
    assert_eq!(s(job, "spec.completionMode"), "Indexed");
    assert_eq!(u(job, "spec.completions"), SHARDS);
    assert!(u(job, "spec.parallelism") <= SHARDS);
    // backoffLimitPerIndex requires restartPolicy Never.
    assert_eq!(s(job, "spec.template.spec.restartPolicy"), "Never");
    assert!(!s(job, "spec.template.spec.containers[0].image").is_empty());
    assert_eq!(results_claim(job), claim);
    let script = s(job, "spec.template.spec.containers[0].args[0]");
    assert!(
        script.contains(&format!("--shard auto/{SHARDS}")),
        "{script}"
    );
    assert!(
        script.contains("--out \"/results/corridor/shard-$JOB_COMPLETION_INDEX\""),
        "{script}"
    );

    let m = docs("docs/k8s/merge-job.yaml");
    assert_eq!(m.len(), 1);
    let merge = &m[0];
    assert_eq!(s(merge, "apiVersion"), "batch/v1");
    assert_eq!(s(merge, "kind"), "Job");
    assert!(merge["spec"].get("completionMode").is_none());
    assert_eq!(s(merge, "spec.template.spec.restartPolicy"), "Never");
    assert_eq!(results_claim(merge), claim);
    assert_eq!(
        s(merge, "spec.template.spec.containers[0].image"),
        s(job, "spec.template.spec.containers[0].image"),
        "shards and merge run the same image"
    );
    let args: Vec<&str> = at(merge, "spec.template.spec.containers[0].args")
        .as_sequence()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let mut want = vec!["merge".to_string()];
    want.extend((0..SHARDS).map(|k| format!("/results/corridor/shard-{k}")));
    want.extend(["--out".into(), "/results/corridor/merged".into()]);
    assert_eq!(args, want);
}

#[test]
fn slurm_array_and_dependent_merge_scripts() {
    for f in [
        "docs/slurm/shards.sbatch",
        "docs/slurm/merge.sbatch",
        "docs/slurm/submit.sh",
    ] {
        let st = Command::new("bash")
            .arg("-n")
            .arg(root().join(f))
            .status()
            .unwrap();
        assert!(st.success(), "bash -n {f}");
    }
    let shards = text("docs/slurm/shards.sbatch");
    assert!(shards.contains(&format!("#SBATCH --array=0-{}\n", SHARDS - 1)));
    assert!(shards.contains(&format!("--shard auto/{SHARDS}")));
    assert!(shards.contains("--out \"$RESULTS/shard-$SLURM_ARRAY_TASK_ID\""));
    let merge = text("docs/slurm/merge.sbatch");
    let dirs: Vec<String> = (0..SHARDS)
        .map(|k| format!("\"$RESULTS/shard-{k}\""))
        .collect();
    assert!(merge.contains(&dirs.join(" ")), "{merge}");
    let submit = text("docs/slurm/submit.sh");
    assert!(submit.contains(
        "sbatch --parsable --output=\"$RESULTS/logs/shard-%A_%a.log\" docs/slurm/shards.sbatch"
    ));
    assert!(submit.contains("--dependency=\"afterok:$array_id\" docs/slurm/merge.sbatch)\""));
    // scripts/slurm_test.sh executes submit.sh and reads the job ids from this line.
    assert!(submit.contains(
        "echo \"shards: job $array_id (array 0-3); merge: job $merge_id (afterok:$array_id)\""
    ));
}

#[test]
fn dockerfile_is_multi_stage_and_copies_what_the_study_reads() {
    let d = text("Dockerfile");
    let froms: Vec<&str> = d.lines().filter(|l| l.starts_with("FROM ")).collect();
    assert_eq!(froms.len(), 2, "{froms:?}");
    assert!(froms[0].starts_with("FROM rust:") && froms[0].ends_with(" AS build"));
    assert!(froms[1].contains("-slim"));
    assert!(d.contains("--no-default-features --bin breakbench"));
    for dir in ["scenarios", "config"] {
        assert!(d.contains(&format!(
            "COPY --from=build /src/{dir} /opt/breakbench/{dir}"
        )));
        assert!(root().join(dir).is_dir());
    }
    // The image's toolchain is not older than the crate's rust-version.
    let want = text("Cargo.toml")
        .lines()
        .find_map(|l| {
            l.strip_prefix("rust-version = \"")
                .and_then(|v| v.split('"').next())
                .map(str::to_string)
        })
        .unwrap();
    let img = froms[0]
        .trim_start_matches("FROM rust:")
        .split('-')
        .next()
        .unwrap();
    let ver = |v: &str| -> Vec<u32> { v.split('.').map(|x| x.parse().unwrap()).collect() };
    assert!(
        ver(img) >= ver(&want),
        "image rust {img} < rust-version {want}"
    );
}

#[test]
fn the_recipes_command_lines_are_accepted_by_the_binary() {
    let bin = env!("CARGO_BIN_EXE_breakbench");
    let dir = Path::new(bin).parent().unwrap();
    let job = &docs("docs/k8s/shards-job.yaml")[1];
    let script = s(job, "spec.template.spec.containers[0].args[0]");
    // The pod's shell command, as pod 2 runs it, with a zero run budget: the
    // flags and the index are parsed, the plan is refused before anything is
    // created or run.
    let out = Command::new("/bin/sh")
        .arg("-c")
        .arg(format!("{script} --max-runs 0"))
        .current_dir(root())
        .env("PATH", format!("{}:/usr/bin:/bin", dir.display()))
        .env("JOB_COMPLETION_INDEX", "2")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("shard 2/4") && err.contains("runs: estimated 26, limit 0"),
        "{err}"
    );
    assert!(!Path::new("/results/corridor/shard-2").exists());
    // An index out of range names the variable.
    let out = Command::new("/bin/sh")
        .arg("-c")
        .arg(script)
        .current_dir(root())
        .env("PATH", format!("{}:/usr/bin:/bin", dir.display()))
        .env("JOB_COMPLETION_INDEX", "4")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("JOB_COMPLETION_INDEX = \"4\""), "{err}");
}
