from google.protobuf import struct_pb2 as _struct_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class TruncationPolicy(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TRUNCATION_POLICY_UNSPECIFIED: _ClassVar[TruncationPolicy]
    TRUNCATION_POLICY_GRADE: _ClassVar[TruncationPolicy]
    TRUNCATION_POLICY_ZERO: _ClassVar[TruncationPolicy]

class StepStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STEP_STATUS_UNSPECIFIED: _ClassVar[StepStatus]
    STEP_STATUS_OK: _ClassVar[StepStatus]
    STEP_STATUS_COMMAND_TIMEOUT: _ClassVar[StepStatus]
    STEP_STATUS_INVALID_ACTION: _ClassVar[StepStatus]
    STEP_STATUS_TRUNCATED_STEPS: _ClassVar[StepStatus]
    STEP_STATUS_TRUNCATED_TIME: _ClassVar[StepStatus]
    STEP_STATUS_INFRA_ERROR: _ClassVar[StepStatus]

class ImagePhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    IMAGE_PHASE_UNSPECIFIED: _ClassVar[ImagePhase]
    IMAGE_PHASE_PRESENT: _ClassVar[ImagePhase]
    IMAGE_PHASE_PULLING: _ClassVar[ImagePhase]
    IMAGE_PHASE_QUEUED: _ClassVar[ImagePhase]
    IMAGE_PHASE_FAILED: _ClassVar[ImagePhase]

class TestStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TEST_STATUS_UNSPECIFIED: _ClassVar[TestStatus]
    TEST_STATUS_PASSED: _ClassVar[TestStatus]
    TEST_STATUS_FAILED: _ClassVar[TestStatus]
    TEST_STATUS_ERROR: _ClassVar[TestStatus]
    TEST_STATUS_SKIPPED: _ClassVar[TestStatus]
    TEST_STATUS_XFAIL: _ClassVar[TestStatus]
    TEST_STATUS_XPASS: _ClassVar[TestStatus]
    TEST_STATUS_MISSING: _ClassVar[TestStatus]

class Resolution(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    RESOLUTION_UNSPECIFIED: _ClassVar[Resolution]
    RESOLUTION_FULL: _ClassVar[Resolution]
    RESOLUTION_PARTIAL: _ClassVar[Resolution]
    RESOLUTION_NO: _ClassVar[Resolution]
TRUNCATION_POLICY_UNSPECIFIED: TruncationPolicy
TRUNCATION_POLICY_GRADE: TruncationPolicy
TRUNCATION_POLICY_ZERO: TruncationPolicy
STEP_STATUS_UNSPECIFIED: StepStatus
STEP_STATUS_OK: StepStatus
STEP_STATUS_COMMAND_TIMEOUT: StepStatus
STEP_STATUS_INVALID_ACTION: StepStatus
STEP_STATUS_TRUNCATED_STEPS: StepStatus
STEP_STATUS_TRUNCATED_TIME: StepStatus
STEP_STATUS_INFRA_ERROR: StepStatus
IMAGE_PHASE_UNSPECIFIED: ImagePhase
IMAGE_PHASE_PRESENT: ImagePhase
IMAGE_PHASE_PULLING: ImagePhase
IMAGE_PHASE_QUEUED: ImagePhase
IMAGE_PHASE_FAILED: ImagePhase
TEST_STATUS_UNSPECIFIED: TestStatus
TEST_STATUS_PASSED: TestStatus
TEST_STATUS_FAILED: TestStatus
TEST_STATUS_ERROR: TestStatus
TEST_STATUS_SKIPPED: TestStatus
TEST_STATUS_XFAIL: TestStatus
TEST_STATUS_XPASS: TestStatus
TEST_STATUS_MISSING: TestStatus
RESOLUTION_UNSPECIFIED: Resolution
RESOLUTION_FULL: Resolution
RESOLUTION_PARTIAL: Resolution
RESOLUTION_NO: Resolution

class ForkRequest(_message.Message):
    __slots__ = ("episode_id", "count", "fresh_budgets", "child_episode_ids")
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    FRESH_BUDGETS_FIELD_NUMBER: _ClassVar[int]
    CHILD_EPISODE_IDS_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    count: int
    fresh_budgets: bool
    child_episode_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, episode_id: _Optional[str] = ..., count: _Optional[int] = ..., fresh_budgets: _Optional[bool] = ..., child_episode_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class ForkResponse(_message.Message):
    __slots__ = ("episode_ids", "branch_step", "copied_entries", "copied_bytes", "deleted_paths", "duration_s")
    EPISODE_IDS_FIELD_NUMBER: _ClassVar[int]
    BRANCH_STEP_FIELD_NUMBER: _ClassVar[int]
    COPIED_ENTRIES_FIELD_NUMBER: _ClassVar[int]
    COPIED_BYTES_FIELD_NUMBER: _ClassVar[int]
    DELETED_PATHS_FIELD_NUMBER: _ClassVar[int]
    DURATION_S_FIELD_NUMBER: _ClassVar[int]
    episode_ids: _containers.RepeatedScalarFieldContainer[str]
    branch_step: int
    copied_entries: int
    copied_bytes: int
    deleted_paths: int
    duration_s: float
    def __init__(self, episode_ids: _Optional[_Iterable[str]] = ..., branch_step: _Optional[int] = ..., copied_entries: _Optional[int] = ..., copied_bytes: _Optional[int] = ..., deleted_paths: _Optional[int] = ..., duration_s: _Optional[float] = ...) -> None: ...

class ReplayRequest(_message.Message):
    __slots__ = ("source_episode_id", "trajectory_jsonl", "steps", "episode_id", "options")
    SOURCE_EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    TRAJECTORY_JSONL_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    source_episode_id: str
    trajectory_jsonl: str
    steps: int
    episode_id: str
    options: EpisodeOptions
    def __init__(self, source_episode_id: _Optional[str] = ..., trajectory_jsonl: _Optional[str] = ..., steps: _Optional[int] = ..., episode_id: _Optional[str] = ..., options: _Optional[_Union[EpisodeOptions, _Mapping]] = ...) -> None: ...

class ReplayDivergence(_message.Message):
    __slots__ = ("step_index", "field", "recorded", "replayed")
    STEP_INDEX_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    RECORDED_FIELD_NUMBER: _ClassVar[int]
    REPLAYED_FIELD_NUMBER: _ClassVar[int]
    step_index: int
    field: str
    recorded: str
    replayed: str
    def __init__(self, step_index: _Optional[int] = ..., field: _Optional[str] = ..., recorded: _Optional[str] = ..., replayed: _Optional[str] = ...) -> None: ...

class ReplayResponse(_message.Message):
    __slots__ = ("episode_id", "steps", "divergences", "first_divergence", "duration_s")
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    DIVERGENCES_FIELD_NUMBER: _ClassVar[int]
    FIRST_DIVERGENCE_FIELD_NUMBER: _ClassVar[int]
    DURATION_S_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    steps: int
    divergences: _containers.RepeatedCompositeFieldContainer[ReplayDivergence]
    first_divergence: int
    duration_s: float
    def __init__(self, episode_id: _Optional[str] = ..., steps: _Optional[int] = ..., divergences: _Optional[_Iterable[_Union[ReplayDivergence, _Mapping]]] = ..., first_divergence: _Optional[int] = ..., duration_s: _Optional[float] = ...) -> None: ...

class ListTasksRequest(_message.Message):
    __slots__ = ("page_size", "page_token", "dataset")
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    DATASET_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    dataset: str
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., dataset: _Optional[str] = ...) -> None: ...

class ListTasksResponse(_message.Message):
    __slots__ = ("tasks", "next_page_token", "total_size")
    TASKS_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    TOTAL_SIZE_FIELD_NUMBER: _ClassVar[int]
    tasks: _containers.RepeatedCompositeFieldContainer[TaskSummary]
    next_page_token: str
    total_size: int
    def __init__(self, tasks: _Optional[_Iterable[_Union[TaskSummary, _Mapping]]] = ..., next_page_token: _Optional[str] = ..., total_size: _Optional[int] = ...) -> None: ...

class TaskSummary(_message.Message):
    __slots__ = ("task_id", "dataset", "repo", "version", "image")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    DATASET_FIELD_NUMBER: _ClassVar[int]
    REPO_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    dataset: str
    repo: str
    version: str
    image: str
    def __init__(self, task_id: _Optional[str] = ..., dataset: _Optional[str] = ..., repo: _Optional[str] = ..., version: _Optional[str] = ..., image: _Optional[str] = ...) -> None: ...

class GetTaskRequest(_message.Message):
    __slots__ = ("task_id",)
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    def __init__(self, task_id: _Optional[str] = ...) -> None: ...

class Task(_message.Message):
    __slots__ = ("task_id", "dataset", "repo", "base_commit", "version", "problem_statement", "hints_text", "created_at", "image", "workdir", "fail_to_pass_count", "pass_to_pass_count", "prompt", "tools")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    DATASET_FIELD_NUMBER: _ClassVar[int]
    REPO_FIELD_NUMBER: _ClassVar[int]
    BASE_COMMIT_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_STATEMENT_FIELD_NUMBER: _ClassVar[int]
    HINTS_TEXT_FIELD_NUMBER: _ClassVar[int]
    CREATED_AT_FIELD_NUMBER: _ClassVar[int]
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    WORKDIR_FIELD_NUMBER: _ClassVar[int]
    FAIL_TO_PASS_COUNT_FIELD_NUMBER: _ClassVar[int]
    PASS_TO_PASS_COUNT_FIELD_NUMBER: _ClassVar[int]
    PROMPT_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    dataset: str
    repo: str
    base_commit: str
    version: str
    problem_statement: str
    hints_text: str
    created_at: str
    image: str
    workdir: str
    fail_to_pass_count: int
    pass_to_pass_count: int
    prompt: str
    tools: _containers.RepeatedCompositeFieldContainer[ToolSchema]
    def __init__(self, task_id: _Optional[str] = ..., dataset: _Optional[str] = ..., repo: _Optional[str] = ..., base_commit: _Optional[str] = ..., version: _Optional[str] = ..., problem_statement: _Optional[str] = ..., hints_text: _Optional[str] = ..., created_at: _Optional[str] = ..., image: _Optional[str] = ..., workdir: _Optional[str] = ..., fail_to_pass_count: _Optional[int] = ..., pass_to_pass_count: _Optional[int] = ..., prompt: _Optional[str] = ..., tools: _Optional[_Iterable[_Union[ToolSchema, _Mapping]]] = ...) -> None: ...

class EpisodeOptions(_message.Message):
    __slots__ = ("max_steps", "command_timeout_s", "episode_timeout_s", "output_limit_bytes", "truncation", "idle_timeout_s")
    MAX_STEPS_FIELD_NUMBER: _ClassVar[int]
    COMMAND_TIMEOUT_S_FIELD_NUMBER: _ClassVar[int]
    EPISODE_TIMEOUT_S_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_LIMIT_BYTES_FIELD_NUMBER: _ClassVar[int]
    TRUNCATION_FIELD_NUMBER: _ClassVar[int]
    IDLE_TIMEOUT_S_FIELD_NUMBER: _ClassVar[int]
    max_steps: int
    command_timeout_s: float
    episode_timeout_s: float
    output_limit_bytes: int
    truncation: TruncationPolicy
    idle_timeout_s: float
    def __init__(self, max_steps: _Optional[int] = ..., command_timeout_s: _Optional[float] = ..., episode_timeout_s: _Optional[float] = ..., output_limit_bytes: _Optional[int] = ..., truncation: _Optional[_Union[TruncationPolicy, str]] = ..., idle_timeout_s: _Optional[float] = ...) -> None: ...

class ResetRequest(_message.Message):
    __slots__ = ("task_id", "episode_id", "seed", "options", "group_id")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    episode_id: str
    seed: int
    options: EpisodeOptions
    group_id: str
    def __init__(self, task_id: _Optional[str] = ..., episode_id: _Optional[str] = ..., seed: _Optional[int] = ..., options: _Optional[_Union[EpisodeOptions, _Mapping]] = ..., group_id: _Optional[str] = ...) -> None: ...

class ToolSchema(_message.Message):
    __slots__ = ("type", "name", "description", "parameters_json", "openai_json")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    PARAMETERS_JSON_FIELD_NUMBER: _ClassVar[int]
    OPENAI_JSON_FIELD_NUMBER: _ClassVar[int]
    type: str
    name: str
    description: str
    parameters_json: str
    openai_json: str
    def __init__(self, type: _Optional[str] = ..., name: _Optional[str] = ..., description: _Optional[str] = ..., parameters_json: _Optional[str] = ..., openai_json: _Optional[str] = ...) -> None: ...

class ResetResponse(_message.Message):
    __slots__ = ("episode_id", "observation", "tools", "info", "options")
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    TOOLS_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    observation: str
    tools: _containers.RepeatedCompositeFieldContainer[ToolSchema]
    info: _struct_pb2.Struct
    options: EffectiveOptions
    def __init__(self, episode_id: _Optional[str] = ..., observation: _Optional[str] = ..., tools: _Optional[_Iterable[_Union[ToolSchema, _Mapping]]] = ..., info: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., options: _Optional[_Union[EffectiveOptions, _Mapping]] = ...) -> None: ...

class EffectiveOptions(_message.Message):
    __slots__ = ("max_steps", "command_timeout_s", "episode_timeout_s", "output_limit_bytes", "truncation", "idle_timeout_s")
    MAX_STEPS_FIELD_NUMBER: _ClassVar[int]
    COMMAND_TIMEOUT_S_FIELD_NUMBER: _ClassVar[int]
    EPISODE_TIMEOUT_S_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_LIMIT_BYTES_FIELD_NUMBER: _ClassVar[int]
    TRUNCATION_FIELD_NUMBER: _ClassVar[int]
    IDLE_TIMEOUT_S_FIELD_NUMBER: _ClassVar[int]
    max_steps: int
    command_timeout_s: float
    episode_timeout_s: float
    output_limit_bytes: int
    truncation: TruncationPolicy
    idle_timeout_s: float
    def __init__(self, max_steps: _Optional[int] = ..., command_timeout_s: _Optional[float] = ..., episode_timeout_s: _Optional[float] = ..., output_limit_bytes: _Optional[int] = ..., truncation: _Optional[_Union[TruncationPolicy, str]] = ..., idle_timeout_s: _Optional[float] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("name", "arguments_json", "call_id")
    NAME_FIELD_NUMBER: _ClassVar[int]
    ARGUMENTS_JSON_FIELD_NUMBER: _ClassVar[int]
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    arguments_json: str
    call_id: str
    def __init__(self, name: _Optional[str] = ..., arguments_json: _Optional[str] = ..., call_id: _Optional[str] = ...) -> None: ...

class StepRequest(_message.Message):
    __slots__ = ("episode_id", "step_index", "action", "assistant")
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    STEP_INDEX_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    ASSISTANT_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    step_index: int
    action: Action
    assistant: AssistantTurn
    def __init__(self, episode_id: _Optional[str] = ..., step_index: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ..., assistant: _Optional[_Union[AssistantTurn, _Mapping]] = ...) -> None: ...

class AssistantTurn(_message.Message):
    __slots__ = ("content", "reasoning", "model")
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    REASONING_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    content: str
    reasoning: str
    model: str
    def __init__(self, content: _Optional[str] = ..., reasoning: _Optional[str] = ..., model: _Optional[str] = ...) -> None: ...

class StepResponse(_message.Message):
    __slots__ = ("observation", "reward", "terminated", "truncated", "status", "step_index", "call_id", "exit_code", "info", "report")
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    TERMINATED_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    STEP_INDEX_FIELD_NUMBER: _ClassVar[int]
    CALL_ID_FIELD_NUMBER: _ClassVar[int]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    INFO_FIELD_NUMBER: _ClassVar[int]
    REPORT_FIELD_NUMBER: _ClassVar[int]
    observation: str
    reward: float
    terminated: bool
    truncated: bool
    status: StepStatus
    step_index: int
    call_id: str
    exit_code: int
    info: _struct_pb2.Struct
    report: GradeReport
    def __init__(self, observation: _Optional[str] = ..., reward: _Optional[float] = ..., terminated: _Optional[bool] = ..., truncated: _Optional[bool] = ..., status: _Optional[_Union[StepStatus, str]] = ..., step_index: _Optional[int] = ..., call_id: _Optional[str] = ..., exit_code: _Optional[int] = ..., info: _Optional[_Union[_struct_pb2.Struct, _Mapping]] = ..., report: _Optional[_Union[GradeReport, _Mapping]] = ...) -> None: ...

class CloseRequest(_message.Message):
    __slots__ = ("episode_id",)
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    def __init__(self, episode_id: _Optional[str] = ...) -> None: ...

class InterruptRequest(_message.Message):
    __slots__ = ("episode_id",)
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    def __init__(self, episode_id: _Optional[str] = ...) -> None: ...

class InterruptResponse(_message.Message):
    __slots__ = ("interrupted",)
    INTERRUPTED_FIELD_NUMBER: _ClassVar[int]
    interrupted: bool
    def __init__(self, interrupted: _Optional[bool] = ...) -> None: ...

class CloseResponse(_message.Message):
    __slots__ = ("summary",)
    SUMMARY_FIELD_NUMBER: _ClassVar[int]
    summary: EpisodeSummary
    def __init__(self, summary: _Optional[_Union[EpisodeSummary, _Mapping]] = ...) -> None: ...

class EpisodeSummary(_message.Message):
    __slots__ = ("episode_id", "task_id", "steps", "reward", "terminated", "truncated", "end_reason", "duration_s", "report", "seed", "group_id", "container_removal_pending")
    EPISODE_ID_FIELD_NUMBER: _ClassVar[int]
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    STEPS_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    TERMINATED_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    END_REASON_FIELD_NUMBER: _ClassVar[int]
    DURATION_S_FIELD_NUMBER: _ClassVar[int]
    REPORT_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    GROUP_ID_FIELD_NUMBER: _ClassVar[int]
    CONTAINER_REMOVAL_PENDING_FIELD_NUMBER: _ClassVar[int]
    episode_id: str
    task_id: str
    steps: int
    reward: float
    terminated: bool
    truncated: bool
    end_reason: str
    duration_s: float
    report: GradeReport
    seed: int
    group_id: str
    container_removal_pending: str
    def __init__(self, episode_id: _Optional[str] = ..., task_id: _Optional[str] = ..., steps: _Optional[int] = ..., reward: _Optional[float] = ..., terminated: _Optional[bool] = ..., truncated: _Optional[bool] = ..., end_reason: _Optional[str] = ..., duration_s: _Optional[float] = ..., report: _Optional[_Union[GradeReport, _Mapping]] = ..., seed: _Optional[int] = ..., group_id: _Optional[str] = ..., container_removal_pending: _Optional[str] = ...) -> None: ...

class PrewarmRequest(_message.Message):
    __slots__ = ("task_id", "count")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    count: int
    def __init__(self, task_id: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class PrewarmResponse(_message.Message):
    __slots__ = ("warm", "starting", "message")
    WARM_FIELD_NUMBER: _ClassVar[int]
    STARTING_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    warm: int
    starting: int
    message: str
    def __init__(self, warm: _Optional[int] = ..., starting: _Optional[int] = ..., message: _Optional[str] = ...) -> None: ...

class GetServerInfoRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ServerInfo(_message.Message):
    __slots__ = ("server_id", "version", "live_episodes", "max_episodes", "gradings_running", "max_gradings", "starts_in_flight", "max_starts", "task_count", "images", "free_disk_bytes", "min_free_bytes", "draining", "started_at", "warm_sandboxes", "image_supply", "engine", "runtime")
    SERVER_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    LIVE_EPISODES_FIELD_NUMBER: _ClassVar[int]
    MAX_EPISODES_FIELD_NUMBER: _ClassVar[int]
    GRADINGS_RUNNING_FIELD_NUMBER: _ClassVar[int]
    MAX_GRADINGS_FIELD_NUMBER: _ClassVar[int]
    STARTS_IN_FLIGHT_FIELD_NUMBER: _ClassVar[int]
    MAX_STARTS_FIELD_NUMBER: _ClassVar[int]
    TASK_COUNT_FIELD_NUMBER: _ClassVar[int]
    IMAGES_FIELD_NUMBER: _ClassVar[int]
    FREE_DISK_BYTES_FIELD_NUMBER: _ClassVar[int]
    MIN_FREE_BYTES_FIELD_NUMBER: _ClassVar[int]
    DRAINING_FIELD_NUMBER: _ClassVar[int]
    STARTED_AT_FIELD_NUMBER: _ClassVar[int]
    WARM_SANDBOXES_FIELD_NUMBER: _ClassVar[int]
    IMAGE_SUPPLY_FIELD_NUMBER: _ClassVar[int]
    ENGINE_FIELD_NUMBER: _ClassVar[int]
    RUNTIME_FIELD_NUMBER: _ClassVar[int]
    server_id: str
    version: str
    live_episodes: int
    max_episodes: int
    gradings_running: int
    max_gradings: int
    starts_in_flight: int
    max_starts: int
    task_count: int
    images: _containers.RepeatedScalarFieldContainer[str]
    free_disk_bytes: int
    min_free_bytes: int
    draining: bool
    started_at: str
    warm_sandboxes: int
    image_supply: ImageSupply
    engine: str
    runtime: str
    def __init__(self, server_id: _Optional[str] = ..., version: _Optional[str] = ..., live_episodes: _Optional[int] = ..., max_episodes: _Optional[int] = ..., gradings_running: _Optional[int] = ..., max_gradings: _Optional[int] = ..., starts_in_flight: _Optional[int] = ..., max_starts: _Optional[int] = ..., task_count: _Optional[int] = ..., images: _Optional[_Iterable[str]] = ..., free_disk_bytes: _Optional[int] = ..., min_free_bytes: _Optional[int] = ..., draining: _Optional[bool] = ..., started_at: _Optional[str] = ..., warm_sandboxes: _Optional[int] = ..., image_supply: _Optional[_Union[ImageSupply, _Mapping]] = ..., engine: _Optional[str] = ..., runtime: _Optional[str] = ...) -> None: ...

class ImageState(_message.Message):
    __slots__ = ("image", "task_ids", "phase", "error", "bytes_done", "bytes_total", "layers_done", "layers_total", "attempt")
    IMAGE_FIELD_NUMBER: _ClassVar[int]
    TASK_IDS_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    BYTES_DONE_FIELD_NUMBER: _ClassVar[int]
    BYTES_TOTAL_FIELD_NUMBER: _ClassVar[int]
    LAYERS_DONE_FIELD_NUMBER: _ClassVar[int]
    LAYERS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    ATTEMPT_FIELD_NUMBER: _ClassVar[int]
    image: str
    task_ids: _containers.RepeatedScalarFieldContainer[str]
    phase: ImagePhase
    error: str
    bytes_done: int
    bytes_total: int
    layers_done: int
    layers_total: int
    attempt: int
    def __init__(self, image: _Optional[str] = ..., task_ids: _Optional[_Iterable[str]] = ..., phase: _Optional[_Union[ImagePhase, str]] = ..., error: _Optional[str] = ..., bytes_done: _Optional[int] = ..., bytes_total: _Optional[int] = ..., layers_done: _Optional[int] = ..., layers_total: _Optional[int] = ..., attempt: _Optional[int] = ...) -> None: ...

class PrefetchRequest(_message.Message):
    __slots__ = ("task_ids",)
    TASK_IDS_FIELD_NUMBER: _ClassVar[int]
    task_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, task_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class PrefetchResponse(_message.Message):
    __slots__ = ("images", "unknown_task_ids")
    IMAGES_FIELD_NUMBER: _ClassVar[int]
    UNKNOWN_TASK_IDS_FIELD_NUMBER: _ClassVar[int]
    images: _containers.RepeatedCompositeFieldContainer[ImageState]
    unknown_task_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, images: _Optional[_Iterable[_Union[ImageState, _Mapping]]] = ..., unknown_task_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class ImageSupply(_message.Message):
    __slots__ = ("pulls_running", "pulls_queued", "max_pulls", "pull_bytes_done", "pull_bytes_total", "pulls", "cache_bytes", "cache_high_bytes", "cache_low_bytes", "evictions", "pinned_images", "pulls_done")
    PULLS_RUNNING_FIELD_NUMBER: _ClassVar[int]
    PULLS_QUEUED_FIELD_NUMBER: _ClassVar[int]
    MAX_PULLS_FIELD_NUMBER: _ClassVar[int]
    PULL_BYTES_DONE_FIELD_NUMBER: _ClassVar[int]
    PULL_BYTES_TOTAL_FIELD_NUMBER: _ClassVar[int]
    PULLS_FIELD_NUMBER: _ClassVar[int]
    CACHE_BYTES_FIELD_NUMBER: _ClassVar[int]
    CACHE_HIGH_BYTES_FIELD_NUMBER: _ClassVar[int]
    CACHE_LOW_BYTES_FIELD_NUMBER: _ClassVar[int]
    EVICTIONS_FIELD_NUMBER: _ClassVar[int]
    PINNED_IMAGES_FIELD_NUMBER: _ClassVar[int]
    PULLS_DONE_FIELD_NUMBER: _ClassVar[int]
    pulls_running: int
    pulls_queued: int
    max_pulls: int
    pull_bytes_done: int
    pull_bytes_total: int
    pulls: _containers.RepeatedCompositeFieldContainer[ImageState]
    cache_bytes: int
    cache_high_bytes: int
    cache_low_bytes: int
    evictions: int
    pinned_images: int
    pulls_done: int
    def __init__(self, pulls_running: _Optional[int] = ..., pulls_queued: _Optional[int] = ..., max_pulls: _Optional[int] = ..., pull_bytes_done: _Optional[int] = ..., pull_bytes_total: _Optional[int] = ..., pulls: _Optional[_Iterable[_Union[ImageState, _Mapping]]] = ..., cache_bytes: _Optional[int] = ..., cache_high_bytes: _Optional[int] = ..., cache_low_bytes: _Optional[int] = ..., evictions: _Optional[int] = ..., pinned_images: _Optional[int] = ..., pulls_done: _Optional[int] = ...) -> None: ...

class EvaluateRequest(_message.Message):
    __slots__ = ("task_id", "patch", "reward_rule")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    PATCH_FIELD_NUMBER: _ClassVar[int]
    REWARD_RULE_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    patch: str
    reward_rule: str
    def __init__(self, task_id: _Optional[str] = ..., patch: _Optional[str] = ..., reward_rule: _Optional[str] = ...) -> None: ...

class EvaluateResponse(_message.Message):
    __slots__ = ("report",)
    REPORT_FIELD_NUMBER: _ClassVar[int]
    report: GradeReport
    def __init__(self, report: _Optional[_Union[GradeReport, _Mapping]] = ...) -> None: ...

class TestResult(_message.Message):
    __slots__ = ("name", "status")
    NAME_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    name: str
    status: TestStatus
    def __init__(self, name: _Optional[str] = ..., status: _Optional[_Union[TestStatus, str]] = ...) -> None: ...

class GradeReport(_message.Message):
    __slots__ = ("task_id", "resolved", "reward", "resolution", "infra_error", "error", "patch_empty", "patch_applied", "patch_apply_method", "patch_bytes", "fail_to_pass", "pass_to_pass", "test_exit_code", "test_timed_out", "test_command", "log_tail", "dropped_files", "durations", "results_source", "integrity_flags", "patch_warnings", "plan", "install", "harness", "reward_rule", "harness_read", "audit_flags", "canaries", "after_test_patch", "grading_network", "findings")
    TASK_ID_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_FIELD_NUMBER: _ClassVar[int]
    REWARD_FIELD_NUMBER: _ClassVar[int]
    RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    INFRA_ERROR_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    PATCH_EMPTY_FIELD_NUMBER: _ClassVar[int]
    PATCH_APPLIED_FIELD_NUMBER: _ClassVar[int]
    PATCH_APPLY_METHOD_FIELD_NUMBER: _ClassVar[int]
    PATCH_BYTES_FIELD_NUMBER: _ClassVar[int]
    FAIL_TO_PASS_FIELD_NUMBER: _ClassVar[int]
    PASS_TO_PASS_FIELD_NUMBER: _ClassVar[int]
    TEST_EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    TEST_TIMED_OUT_FIELD_NUMBER: _ClassVar[int]
    TEST_COMMAND_FIELD_NUMBER: _ClassVar[int]
    LOG_TAIL_FIELD_NUMBER: _ClassVar[int]
    DROPPED_FILES_FIELD_NUMBER: _ClassVar[int]
    DURATIONS_FIELD_NUMBER: _ClassVar[int]
    RESULTS_SOURCE_FIELD_NUMBER: _ClassVar[int]
    INTEGRITY_FLAGS_FIELD_NUMBER: _ClassVar[int]
    PATCH_WARNINGS_FIELD_NUMBER: _ClassVar[int]
    PLAN_FIELD_NUMBER: _ClassVar[int]
    INSTALL_FIELD_NUMBER: _ClassVar[int]
    HARNESS_FIELD_NUMBER: _ClassVar[int]
    REWARD_RULE_FIELD_NUMBER: _ClassVar[int]
    HARNESS_READ_FIELD_NUMBER: _ClassVar[int]
    AUDIT_FLAGS_FIELD_NUMBER: _ClassVar[int]
    CANARIES_FIELD_NUMBER: _ClassVar[int]
    AFTER_TEST_PATCH_FIELD_NUMBER: _ClassVar[int]
    GRADING_NETWORK_FIELD_NUMBER: _ClassVar[int]
    FINDINGS_FIELD_NUMBER: _ClassVar[int]
    task_id: str
    resolved: bool
    reward: float
    resolution: Resolution
    infra_error: bool
    error: str
    patch_empty: bool
    patch_applied: bool
    patch_apply_method: str
    patch_bytes: int
    fail_to_pass: _containers.RepeatedCompositeFieldContainer[TestResult]
    pass_to_pass: _containers.RepeatedCompositeFieldContainer[TestResult]
    test_exit_code: int
    test_timed_out: bool
    test_command: str
    log_tail: str
    dropped_files: _containers.RepeatedScalarFieldContainer[str]
    durations: Durations
    results_source: str
    integrity_flags: _containers.RepeatedScalarFieldContainer[str]
    patch_warnings: _containers.RepeatedScalarFieldContainer[str]
    plan: EvalPlan
    install: InstallRun
    harness: HarnessVerdict
    reward_rule: str
    harness_read: _containers.RepeatedScalarFieldContainer[str]
    audit_flags: _containers.RepeatedScalarFieldContainer[str]
    canaries: int
    after_test_patch: InstallRun
    grading_network: str
    findings: _containers.RepeatedCompositeFieldContainer[Finding]
    def __init__(self, task_id: _Optional[str] = ..., resolved: _Optional[bool] = ..., reward: _Optional[float] = ..., resolution: _Optional[_Union[Resolution, str]] = ..., infra_error: _Optional[bool] = ..., error: _Optional[str] = ..., patch_empty: _Optional[bool] = ..., patch_applied: _Optional[bool] = ..., patch_apply_method: _Optional[str] = ..., patch_bytes: _Optional[int] = ..., fail_to_pass: _Optional[_Iterable[_Union[TestResult, _Mapping]]] = ..., pass_to_pass: _Optional[_Iterable[_Union[TestResult, _Mapping]]] = ..., test_exit_code: _Optional[int] = ..., test_timed_out: _Optional[bool] = ..., test_command: _Optional[str] = ..., log_tail: _Optional[str] = ..., dropped_files: _Optional[_Iterable[str]] = ..., durations: _Optional[_Union[Durations, _Mapping]] = ..., results_source: _Optional[str] = ..., integrity_flags: _Optional[_Iterable[str]] = ..., patch_warnings: _Optional[_Iterable[str]] = ..., plan: _Optional[_Union[EvalPlan, _Mapping]] = ..., install: _Optional[_Union[InstallRun, _Mapping]] = ..., harness: _Optional[_Union[HarnessVerdict, _Mapping]] = ..., reward_rule: _Optional[str] = ..., harness_read: _Optional[_Iterable[str]] = ..., audit_flags: _Optional[_Iterable[str]] = ..., canaries: _Optional[int] = ..., after_test_patch: _Optional[_Union[InstallRun, _Mapping]] = ..., grading_network: _Optional[str] = ..., findings: _Optional[_Iterable[_Union[Finding, _Mapping]]] = ...) -> None: ...

class Finding(_message.Message):
    __slots__ = ("kind", "family", "severity", "label", "line")
    KIND_FIELD_NUMBER: _ClassVar[int]
    FAMILY_FIELD_NUMBER: _ClassVar[int]
    SEVERITY_FIELD_NUMBER: _ClassVar[int]
    LABEL_FIELD_NUMBER: _ClassVar[int]
    LINE_FIELD_NUMBER: _ClassVar[int]
    kind: str
    family: str
    severity: str
    label: str
    line: str
    def __init__(self, kind: _Optional[str] = ..., family: _Optional[str] = ..., severity: _Optional[str] = ..., label: _Optional[str] = ..., line: _Optional[str] = ...) -> None: ...

class EvalPlan(_message.Message):
    __slots__ = ("source", "eval_commands", "install", "test_command", "reset_files", "harness_parser", "notes", "before_test_patch", "after_test_patch")
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    EVAL_COMMANDS_FIELD_NUMBER: _ClassVar[int]
    INSTALL_FIELD_NUMBER: _ClassVar[int]
    TEST_COMMAND_FIELD_NUMBER: _ClassVar[int]
    RESET_FILES_FIELD_NUMBER: _ClassVar[int]
    HARNESS_PARSER_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    BEFORE_TEST_PATCH_FIELD_NUMBER: _ClassVar[int]
    AFTER_TEST_PATCH_FIELD_NUMBER: _ClassVar[int]
    source: str
    eval_commands: _containers.RepeatedScalarFieldContainer[str]
    install: str
    test_command: str
    reset_files: _containers.RepeatedScalarFieldContainer[str]
    harness_parser: str
    notes: _containers.RepeatedScalarFieldContainer[str]
    before_test_patch: _containers.RepeatedScalarFieldContainer[str]
    after_test_patch: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, source: _Optional[str] = ..., eval_commands: _Optional[_Iterable[str]] = ..., install: _Optional[str] = ..., test_command: _Optional[str] = ..., reset_files: _Optional[_Iterable[str]] = ..., harness_parser: _Optional[str] = ..., notes: _Optional[_Iterable[str]] = ..., before_test_patch: _Optional[_Iterable[str]] = ..., after_test_patch: _Optional[_Iterable[str]] = ...) -> None: ...

class InstallRun(_message.Message):
    __slots__ = ("ran", "reason", "exit_code", "seconds", "output_tail")
    RAN_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    EXIT_CODE_FIELD_NUMBER: _ClassVar[int]
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    OUTPUT_TAIL_FIELD_NUMBER: _ClassVar[int]
    ran: bool
    reason: str
    exit_code: int
    seconds: float
    output_tail: str
    def __init__(self, ran: _Optional[bool] = ..., reason: _Optional[str] = ..., exit_code: _Optional[int] = ..., seconds: _Optional[float] = ..., output_tail: _Optional[str] = ...) -> None: ...

class HarnessVerdict(_message.Message):
    __slots__ = ("generation", "resolved", "resolution", "fail_to_pass_success", "fail_to_pass_failure", "pass_to_pass_success", "pass_to_pass_failure", "invalid")
    GENERATION_FIELD_NUMBER: _ClassVar[int]
    RESOLVED_FIELD_NUMBER: _ClassVar[int]
    RESOLUTION_FIELD_NUMBER: _ClassVar[int]
    FAIL_TO_PASS_SUCCESS_FIELD_NUMBER: _ClassVar[int]
    FAIL_TO_PASS_FAILURE_FIELD_NUMBER: _ClassVar[int]
    PASS_TO_PASS_SUCCESS_FIELD_NUMBER: _ClassVar[int]
    PASS_TO_PASS_FAILURE_FIELD_NUMBER: _ClassVar[int]
    INVALID_FIELD_NUMBER: _ClassVar[int]
    generation: str
    resolved: bool
    resolution: Resolution
    fail_to_pass_success: _containers.RepeatedScalarFieldContainer[str]
    fail_to_pass_failure: _containers.RepeatedScalarFieldContainer[str]
    pass_to_pass_success: _containers.RepeatedScalarFieldContainer[str]
    pass_to_pass_failure: _containers.RepeatedScalarFieldContainer[str]
    invalid: str
    def __init__(self, generation: _Optional[str] = ..., resolved: _Optional[bool] = ..., resolution: _Optional[_Union[Resolution, str]] = ..., fail_to_pass_success: _Optional[_Iterable[str]] = ..., fail_to_pass_failure: _Optional[_Iterable[str]] = ..., pass_to_pass_success: _Optional[_Iterable[str]] = ..., pass_to_pass_failure: _Optional[_Iterable[str]] = ..., invalid: _Optional[str] = ...) -> None: ...

class Durations(_message.Message):
    __slots__ = ("capture_s", "container_start_s", "patch_s", "test_run_s", "total_s", "install_s")
    CAPTURE_S_FIELD_NUMBER: _ClassVar[int]
    CONTAINER_START_S_FIELD_NUMBER: _ClassVar[int]
    PATCH_S_FIELD_NUMBER: _ClassVar[int]
    TEST_RUN_S_FIELD_NUMBER: _ClassVar[int]
    TOTAL_S_FIELD_NUMBER: _ClassVar[int]
    INSTALL_S_FIELD_NUMBER: _ClassVar[int]
    capture_s: float
    container_start_s: float
    patch_s: float
    test_run_s: float
    total_s: float
    install_s: float
    def __init__(self, capture_s: _Optional[float] = ..., container_start_s: _Optional[float] = ..., patch_s: _Optional[float] = ..., test_run_s: _Optional[float] = ..., total_s: _Optional[float] = ..., install_s: _Optional[float] = ...) -> None: ...
