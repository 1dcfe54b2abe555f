package boxagent

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/coreagent/core/sandbox/limit"
)

// The box's protocol (sandbox/box.go, boxagent.go): one connection a command, on
// the agent's socket. Every message is a frame: a 4-byte big-endian length,
// then a kind byte and the payload; the length counts both. The host sends
// a request and then, for a background process, its pipe's input and a
// stop; the agent answers with the process's pid, its output, its pipe's
// output and its exit. The agent's side runs in the box, so the host reads
// it like any input from the workspace: frames longer than maxFrame, kinds
// the host does not expect and JSON with fields it does not know are
// errors, never a hang or a panic.
const (
	FrameRequest  byte = 'R' // host → agent: Request (JSON)
	FrameInput    byte = 'I' // host → agent: bytes for the process's fd 3
	FrameInputEnd byte = 'C' // host → agent: close the process's fd 3
	FrameStop     byte = 'S' // host → agent: stop the process

	FrameStarted byte = 'P' // agent → host: Started (JSON)
	FrameOutput  byte = 'O' // agent → host: the process's stdout and stderr
	FramePipe    byte = 'D' // agent → host: what the process wrote on fd 4
	FramePipeEnd byte = 'E' // agent → host: fd 4 is closed
	FrameExit    byte = 'X' // agent → host: Exit (JSON), the last frame
)

// maxFrame bounds a frame's kind and payload; MaxChunk is the most data a
// frame carries.
const (
	maxFrame = 64 << 10
	MaxChunk = maxFrame - 1
	// MaxArgBytes bounds a request's argv and environment together.
	MaxArgBytes = maxFrame - 1024
)

// Request asks the agent to run one command.
type Request struct {
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	// Dir is the absolute working directory inside the box.
	Dir string `json:"dir"`
	// TimeoutMS kills the command and all it started when it runs out; 0 is
	// no limit.
	TimeoutMS int64 `json:"timeout_ms,omitempty"`
	// CeilingMS, when more than TimeoutMS, is the command's build
	// ceiling (RunOptions.BuildCeiling): the time it compiles does not
	// count against TimeoutMS.
	CeilingMS int64 `json:"ceiling_ms,omitempty"`
	// Pipe gives the process fd 3 (it reads) and fd 4 (it writes).
	Pipe bool `json:"pipe,omitempty"`
	// Nice runs the command and all it starts at limit.BackgroundNice: work done
	// ahead of need (RunOptions.Background), which then yields the CPUs to
	// the box's other commands, those someone waits for.
	Nice bool `json:"nice,omitempty"`
}

// Started says the command started, and its pid inside the box.
type Started struct {
	PID int `json:"pid"`
}

// Exit says how the command ended: Code is its exit status, or 128 and
// the signal's number when a signal ended it (as bwrap reports it).
type Exit struct {
	Code     int  `json:"code"`
	TimedOut bool `json:"timed_out,omitempty"`
	// AtCeiling says the build ceiling, not the timeout, ended it;
	// BuiltMS is how long it compiled (Result.Built).
	AtCeiling bool   `json:"at_ceiling,omitempty"`
	BuiltMS   int64  `json:"built_ms,omitempty"`
	Err       string `json:"err,omitempty"`
	// Limit names the limit of the box's cgroup hit while the command
	// ran (limit.LimitMemory, limit.LimitProcesses), as the agent of a Docker box
	// sees its container's cgroup; the host reads the bwrap box's itself.
	Limit string `json:"limit,omitempty"`
}

// MaxExitErr bounds the agent's words about a command that did not start.
const MaxExitErr = 4 << 10

// WriteFrame writes one frame.
func WriteFrame(w io.Writer, kind byte, payload []byte) error {
	if len(payload) > MaxChunk {
		return fmt.Errorf("box: a frame of %d bytes is over the limit of %d", len(payload), MaxChunk)
	}
	buf := make([]byte, 5, 5+len(payload))
	binary.BigEndian.PutUint32(buf, uint32(1+len(payload)))
	buf[4] = kind
	_, err := w.Write(append(buf, payload...))
	return err
}

// WriteJSONFrame writes v as the payload of one frame.
func WriteJSONFrame(w io.Writer, kind byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return WriteFrame(w, kind, b)
}

// ErrFrame is what readFrame returns for a frame that breaks the protocol.
var ErrFrame = errors.New("box: a malformed frame")

// readFrame reads one frame whose kind is one of kinds. io.EOF means the
// peer closed the connection between frames.
func readFrame(r *bufio.Reader, kinds []byte) (byte, []byte, error) {
	var head [5]byte
	if _, err := io.ReadFull(r, head[:4]); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return 0, nil, fmt.Errorf("%w: cut in its length", ErrFrame)
		}
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(head[:4])
	if n == 0 || n > maxFrame {
		return 0, nil, fmt.Errorf("%w: a length of %d (at most %d)", ErrFrame, n, maxFrame)
	}
	kind, err := r.ReadByte()
	if err != nil {
		return 0, nil, fmt.Errorf("%w: cut before its kind", ErrFrame)
	}
	if !slices.Contains(kinds, kind) {
		return 0, nil, fmt.Errorf("%w: kind %q is not expected here", ErrFrame, kind)
	}
	payload := make([]byte, n-1)
	if _, err := io.ReadFull(r, payload); err != nil {
		return 0, nil, fmt.Errorf("%w: cut in its payload", ErrFrame)
	}
	return kind, payload, nil
}

// decodeStrict decodes one JSON value that fills b, refusing fields v does
// not have.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%w: %v", ErrFrame, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: more than one JSON value", ErrFrame)
	}
	return nil
}

// replyKinds are the frames the host accepts from the agent.
var replyKinds = []byte{FrameStarted, FrameOutput, FramePipe, FramePipeEnd, FrameExit}

// Reply is one decoded frame from the agent.
type Reply struct {
	Kind    byte
	Data    []byte // FrameOutput, FramePipe
	Started Started
	Exit    Exit
}

// ReadReply reads and checks one frame from the agent: the host's decoder,
// which treats the box as hostile.
func ReadReply(r *bufio.Reader) (Reply, error) {
	kind, payload, err := readFrame(r, replyKinds)
	if err != nil {
		return Reply{}, err
	}
	rep := Reply{Kind: kind}
	switch kind {
	case FrameOutput, FramePipe:
		rep.Data = payload
	case FramePipeEnd:
		if len(payload) != 0 {
			return Reply{}, fmt.Errorf("%w: the end of the pipe carries %d bytes", ErrFrame, len(payload))
		}
	case FrameStarted:
		if err := decodeStrict(payload, &rep.Started); err != nil {
			return Reply{}, err
		}
		if rep.Started.PID <= 0 {
			return Reply{}, fmt.Errorf("%w: pid %d", ErrFrame, rep.Started.PID)
		}
	case FrameExit:
		if err := decodeStrict(payload, &rep.Exit); err != nil {
			return Reply{}, err
		}
		if len(rep.Exit.Err) > MaxExitErr {
			return Reply{}, fmt.Errorf("%w: an error of %d bytes", ErrFrame, len(rep.Exit.Err))
		}
		if c := rep.Exit.Code; c < -1 || c > 255 {
			return Reply{}, fmt.Errorf("%w: exit status %d", ErrFrame, c)
		}
		if l := rep.Exit.Limit; l != "" && l != limit.LimitMemory && l != limit.LimitProcesses {
			return Reply{}, fmt.Errorf("%w: a limit %.40q core does not know", ErrFrame, l)
		}
	}
	return rep, nil
}

// ReadRequest is the agent's decoder of the host's request.
func ReadRequest(r *bufio.Reader) (Request, error) {
	_, payload, err := readFrame(r, []byte{FrameRequest})
	if err != nil {
		return Request{}, err
	}
	var req Request
	if err := decodeStrict(payload, &req); err != nil {
		return Request{}, err
	}
	if len(req.Argv) == 0 || req.Argv[0] == "" {
		return Request{}, fmt.Errorf("%w: no command", ErrFrame)
	}
	if req.Dir == "" || req.Dir[0] != '/' {
		return Request{}, fmt.Errorf("%w: the directory %q is not absolute", ErrFrame, req.Dir)
	}
	return req, nil
}
