//! What ffprobe says about the recording: the first video stream (codec, size, time base, rate,
//! rotation, start; read from ffprobe's JSON into typed structs) and every decoded frame's
//! integer timestamp, which must rise.

use std::path::Path;

use super::input::Recording;
use super::run::{CallLimits, run};
use serde::Deserialize;

use crate::error::{Error, Result};

/// What ffprobe says about the first video stream.
pub(super) struct StreamInfo {
    pub(super) codec: String,
    pub(super) width: u32,
    pub(super) height: u32,
    /// Numerator and denominator.
    pub(super) time_base: (i64, i64),
    pub(super) frame_rate: String,
    /// Degrees clockwise.
    pub(super) rotation: i32,
    /// The stream's start in seconds, when known: where the frames probe may stop counting from.
    pub(super) start_s: Option<f64>,
    /// The container's duration in seconds.
    pub(super) container_duration_s: f64,
}

/// ffprobe's `-of json` answer to [`probe_stream`]'s query: only the entries it asks for, each
/// optional (ffprobe leaves out what a stream lacks); anything else it prints is ignored.
#[derive(Debug, Deserialize)]
struct ProbeAnswer {
    #[serde(default)]
    streams: Vec<ProbedStream>,
    #[serde(default)]
    format: ProbedFormat,
}

/// `streams[]`: one stream's entries (`-select_streams v:0`, so the first video stream).
#[derive(Debug, Deserialize)]
struct ProbedStream {
    codec_name: Option<String>,
    width: Option<u64>,
    height: Option<u64>,
    /// `num/den`, e.g. `1/15360`.
    time_base: Option<String>,
    /// `num/den`, e.g. `30/1`.
    r_frame_rate: Option<String>,
    /// Seconds, as a decimal string.
    start_time: Option<String>,
    #[serde(default)]
    side_data_list: Vec<ProbedSideData>,
    #[serde(default)]
    tags: ProbedTags,
}

/// A `side_data_list` entry; the display matrix's carries `rotation` (degrees, counter-clockwise).
#[derive(Debug, Deserialize)]
struct ProbedSideData {
    rotation: Option<i64>,
}

/// `tags`: older files carry a `rotate` tag (degrees, clockwise, as a string).
#[derive(Debug, Default, Deserialize)]
struct ProbedTags {
    rotate: Option<String>,
}

/// `format`: the container's `duration` (seconds, as a decimal string).
#[derive(Debug, Default, Deserialize)]
struct ProbedFormat {
    duration: Option<String>,
}

/// ffprobe on the first video stream of the recording, through its forced demuxer.
pub(super) fn probe(
    ffprobe: &Path,
    recording: &Recording,
    limits: &CallLimits,
    query: &[&str],
    during: &str,
) -> Result<Vec<u8>> {
    let input = recording.input();
    let mut args = vec!["-v", "error"];
    args.extend_from_slice(recording.container.input_args());
    args.extend_from_slice(&["-select_streams", "v:0"]);
    args.extend_from_slice(query);
    args.extend_from_slice(&["-i", &input]);
    run(ffprobe, &args, limits.video, limits, during)
}

pub(super) fn probe_stream(ffprobe: &Path, recording: &Recording, limits: &CallLimits) -> Result<StreamInfo> {
    let video = limits.video;
    let out = probe(
        ffprobe,
        recording,
        limits,
        &[
            "-show_entries",
            "stream=codec_name,width,height,time_base,r_frame_rate,start_time:stream_side_data=rotation:stream_tags=rotate:format=duration",
            "-of",
            "json",
        ],
        "while ffprobe read the stream",
    )?;
    let answer: ProbeAnswer = serde_json::from_slice(&out)
        .map_err(|e| Error::InvalidInput(format!("{}: ffprobe output unreadable ({e})", video.display())))?;
    let ProbeAnswer { streams, format } = answer;
    let stream = streams.into_iter().next().ok_or_else(|| {
        Error::InvalidInput(format!("{}: no video stream; is it an audio-only file?", video.display()))
    })?;
    let number = |x: Option<u64>| x.and_then(|n| u32::try_from(n).ok()).unwrap_or(0);
    let seconds = |x: Option<&str>| x.and_then(|d| d.parse::<f64>().ok());
    let time_base = stream
        .time_base
        .as_deref()
        .and_then(|tb| tb.split_once('/'))
        .and_then(|(n, d)| Some((n.parse::<i64>().ok()?, d.parse::<i64>().ok()?)))
        .filter(|&(n, d)| n > 0 && d > 0)
        .ok_or_else(|| Error::InvalidInput(format!("{}: the video stream has no time base", video.display())))?;
    // ffprobe gives the display matrix's rotation counter-clockwise; older files carry a
    // `rotate` tag, clockwise.
    let rotation = match stream.side_data_list.iter().find_map(|s| s.rotation) {
        Some(ccw) => -ccw,
        None => stream.tags.rotate.as_deref().and_then(|r| r.parse::<i64>().ok()).unwrap_or(0),
    };
    Ok(StreamInfo {
        codec: stream.codec_name.unwrap_or_else(|| "unknown".to_string()),
        width: number(stream.width),
        height: number(stream.height),
        time_base,
        frame_rate: stream.r_frame_rate.unwrap_or_else(|| "0/0".to_string()),
        rotation: i32::try_from(rotation.rem_euclid(360)).unwrap_or(0),
        start_s: seconds(stream.start_time.as_deref()),
        container_duration_s: seconds(format.duration.as_deref()).unwrap_or(0.0),
    })
}

/// The decoded frames' presentation timestamps (the stream's time base), in decoding order, up
/// to a second past the window; they must rise strictly, or no frame can be chosen by time.
pub(super) fn frame_timestamps(
    ffprobe: &Path,
    recording: &Recording,
    limits: &CallLimits,
    stream: &StreamInfo,
    end_ms: u64,
) -> Result<Vec<i64>> {
    let video = limits.video;
    // Read up to a second past the window's end, counted from the stream's start (a recording
    // may begin at 2 s); the frame at or after the last requested time lies within it.
    let interval = stream.start_s.map(|start| format!("%{:.6}", start.max(0.0) + end_ms as f64 / 1000.0 + 1.0));
    let mut query = vec!["-show_entries", "frame=best_effort_timestamp", "-of", "csv=p=0"];
    if let Some(interval) = &interval {
        query.extend_from_slice(&["-read_intervals", interval]);
    }
    let out = probe(ffprobe, recording, limits, &query, "while ffprobe listed the frame timestamps")?;
    let mut stamps: Vec<i64> = Vec::new();
    for (index, line) in String::from_utf8_lossy(&out).lines().map(|l| l.trim().trim_end_matches(',')).enumerate() {
        if line.is_empty() {
            continue;
        }
        let pts: i64 = line.parse().map_err(|_| {
            Error::InvalidInput(format!(
                "{}: decoded frame {index} has no timestamp ({line}); re-encode the recording with timestamps (ffmpeg -i IN -c:v libx264 OUT.mp4) and extract again",
                video.display()
            ))
        })?;
        if let Some(&previous) = stamps.last()
            && pts <= previous
        {
            return Err(Error::InvalidInput(format!(
                "{}: decoded frame {index} has timestamp {pts}, not after frame {}'s {previous} (time base {}/{}); with duplicate or decreasing timestamps no frame can be chosen by time: re-encode the recording (ffmpeg -i IN -c:v libx264 OUT.mp4) and extract again",
                video.display(),
                index - 1,
                stream.time_base.0,
                stream.time_base.1
            )));
        }
        stamps.push(pts);
    }
    if stamps.is_empty() {
        return Err(Error::InvalidInput(format!("{}: no decodable video frames", video.display())));
    }
    Ok(stamps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn video_probe_reads_ffprobe_json_into_typed_entries() {
        // As ffprobe 5.1 prints it for a rotated phone recording (other keys left out).
        let json = br#"{"programs": [], "streams": [{"codec_name": "h264", "width": 1920, "height": 1080,
            "r_frame_rate": "30/1", "time_base": "1/15360", "start_time": "0.000000",
            "side_data_list": [{"side_data_type": "Display Matrix", "rotation": -90}]}],
            "format": {"duration": "2.033333"}}"#;
        let answer: ProbeAnswer = serde_json::from_slice(json).unwrap();
        let stream = &answer.streams[0];
        assert_eq!(stream.codec_name.as_deref(), Some("h264"));
        assert_eq!((stream.width, stream.height), (Some(1920), Some(1080)));
        assert_eq!(stream.time_base.as_deref(), Some("1/15360"));
        assert_eq!(stream.side_data_list.iter().find_map(|s| s.rotation), Some(-90));
        assert_eq!(answer.format.duration.as_deref(), Some("2.033333"));
        // An audio-only file: no streams; an old file's rotate tag.
        let none: ProbeAnswer = serde_json::from_slice(br#"{"streams": [], "format": {}}"#).unwrap();
        assert!(none.streams.is_empty() && none.format.duration.is_none());
        let tagged: ProbeAnswer = serde_json::from_slice(br#"{"streams": [{"tags": {"rotate": "90"}}]}"#).unwrap();
        assert_eq!(tagged.streams[0].tags.rotate.as_deref(), Some("90"));
    }
}
