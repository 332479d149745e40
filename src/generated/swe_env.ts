import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { ListValue as _google_protobuf_ListValue, ListValue__Output as _google_protobuf_ListValue__Output } from './google/protobuf/ListValue';
import type { Struct as _google_protobuf_Struct, Struct__Output as _google_protobuf_Struct__Output } from './google/protobuf/Struct';
import type { Value as _google_protobuf_Value, Value__Output as _google_protobuf_Value__Output } from './google/protobuf/Value';
import type { Action as _swe_env_v1_Action, Action__Output as _swe_env_v1_Action__Output } from './swe_env/v1/Action';
import type { AssistantTurn as _swe_env_v1_AssistantTurn, AssistantTurn__Output as _swe_env_v1_AssistantTurn__Output } from './swe_env/v1/AssistantTurn';
import type { CloseRequest as _swe_env_v1_CloseRequest, CloseRequest__Output as _swe_env_v1_CloseRequest__Output } from './swe_env/v1/CloseRequest';
import type { CloseResponse as _swe_env_v1_CloseResponse, CloseResponse__Output as _swe_env_v1_CloseResponse__Output } from './swe_env/v1/CloseResponse';
import type { Durations as _swe_env_v1_Durations, Durations__Output as _swe_env_v1_Durations__Output } from './swe_env/v1/Durations';
import type { EffectiveOptions as _swe_env_v1_EffectiveOptions, EffectiveOptions__Output as _swe_env_v1_EffectiveOptions__Output } from './swe_env/v1/EffectiveOptions';
import type { EpisodeOptions as _swe_env_v1_EpisodeOptions, EpisodeOptions__Output as _swe_env_v1_EpisodeOptions__Output } from './swe_env/v1/EpisodeOptions';
import type { EpisodeSummary as _swe_env_v1_EpisodeSummary, EpisodeSummary__Output as _swe_env_v1_EpisodeSummary__Output } from './swe_env/v1/EpisodeSummary';
import type { EvalPlan as _swe_env_v1_EvalPlan, EvalPlan__Output as _swe_env_v1_EvalPlan__Output } from './swe_env/v1/EvalPlan';
import type { EvaluateRequest as _swe_env_v1_EvaluateRequest, EvaluateRequest__Output as _swe_env_v1_EvaluateRequest__Output } from './swe_env/v1/EvaluateRequest';
import type { EvaluateResponse as _swe_env_v1_EvaluateResponse, EvaluateResponse__Output as _swe_env_v1_EvaluateResponse__Output } from './swe_env/v1/EvaluateResponse';
import type { Finding as _swe_env_v1_Finding, Finding__Output as _swe_env_v1_Finding__Output } from './swe_env/v1/Finding';
import type { ForkRequest as _swe_env_v1_ForkRequest, ForkRequest__Output as _swe_env_v1_ForkRequest__Output } from './swe_env/v1/ForkRequest';
import type { ForkResponse as _swe_env_v1_ForkResponse, ForkResponse__Output as _swe_env_v1_ForkResponse__Output } from './swe_env/v1/ForkResponse';
import type { GetServerInfoRequest as _swe_env_v1_GetServerInfoRequest, GetServerInfoRequest__Output as _swe_env_v1_GetServerInfoRequest__Output } from './swe_env/v1/GetServerInfoRequest';
import type { GetTaskRequest as _swe_env_v1_GetTaskRequest, GetTaskRequest__Output as _swe_env_v1_GetTaskRequest__Output } from './swe_env/v1/GetTaskRequest';
import type { GradeReport as _swe_env_v1_GradeReport, GradeReport__Output as _swe_env_v1_GradeReport__Output } from './swe_env/v1/GradeReport';
import type { HarnessVerdict as _swe_env_v1_HarnessVerdict, HarnessVerdict__Output as _swe_env_v1_HarnessVerdict__Output } from './swe_env/v1/HarnessVerdict';
import type { ImageState as _swe_env_v1_ImageState, ImageState__Output as _swe_env_v1_ImageState__Output } from './swe_env/v1/ImageState';
import type { ImageSupply as _swe_env_v1_ImageSupply, ImageSupply__Output as _swe_env_v1_ImageSupply__Output } from './swe_env/v1/ImageSupply';
import type { InstallRun as _swe_env_v1_InstallRun, InstallRun__Output as _swe_env_v1_InstallRun__Output } from './swe_env/v1/InstallRun';
import type { InterruptRequest as _swe_env_v1_InterruptRequest, InterruptRequest__Output as _swe_env_v1_InterruptRequest__Output } from './swe_env/v1/InterruptRequest';
import type { InterruptResponse as _swe_env_v1_InterruptResponse, InterruptResponse__Output as _swe_env_v1_InterruptResponse__Output } from './swe_env/v1/InterruptResponse';
import type { ListTasksRequest as _swe_env_v1_ListTasksRequest, ListTasksRequest__Output as _swe_env_v1_ListTasksRequest__Output } from './swe_env/v1/ListTasksRequest';
import type { ListTasksResponse as _swe_env_v1_ListTasksResponse, ListTasksResponse__Output as _swe_env_v1_ListTasksResponse__Output } from './swe_env/v1/ListTasksResponse';
import type { PrefetchRequest as _swe_env_v1_PrefetchRequest, PrefetchRequest__Output as _swe_env_v1_PrefetchRequest__Output } from './swe_env/v1/PrefetchRequest';
import type { PrefetchResponse as _swe_env_v1_PrefetchResponse, PrefetchResponse__Output as _swe_env_v1_PrefetchResponse__Output } from './swe_env/v1/PrefetchResponse';
import type { PrewarmRequest as _swe_env_v1_PrewarmRequest, PrewarmRequest__Output as _swe_env_v1_PrewarmRequest__Output } from './swe_env/v1/PrewarmRequest';
import type { PrewarmResponse as _swe_env_v1_PrewarmResponse, PrewarmResponse__Output as _swe_env_v1_PrewarmResponse__Output } from './swe_env/v1/PrewarmResponse';
import type { ReplayDivergence as _swe_env_v1_ReplayDivergence, ReplayDivergence__Output as _swe_env_v1_ReplayDivergence__Output } from './swe_env/v1/ReplayDivergence';
import type { ReplayRequest as _swe_env_v1_ReplayRequest, ReplayRequest__Output as _swe_env_v1_ReplayRequest__Output } from './swe_env/v1/ReplayRequest';
import type { ReplayResponse as _swe_env_v1_ReplayResponse, ReplayResponse__Output as _swe_env_v1_ReplayResponse__Output } from './swe_env/v1/ReplayResponse';
import type { ResetRequest as _swe_env_v1_ResetRequest, ResetRequest__Output as _swe_env_v1_ResetRequest__Output } from './swe_env/v1/ResetRequest';
import type { ResetResponse as _swe_env_v1_ResetResponse, ResetResponse__Output as _swe_env_v1_ResetResponse__Output } from './swe_env/v1/ResetResponse';
import type { ServerInfo as _swe_env_v1_ServerInfo, ServerInfo__Output as _swe_env_v1_ServerInfo__Output } from './swe_env/v1/ServerInfo';
import type { StepRequest as _swe_env_v1_StepRequest, StepRequest__Output as _swe_env_v1_StepRequest__Output } from './swe_env/v1/StepRequest';
import type { StepResponse as _swe_env_v1_StepResponse, StepResponse__Output as _swe_env_v1_StepResponse__Output } from './swe_env/v1/StepResponse';
import type { SweEnvClient as _swe_env_v1_SweEnvClient, SweEnvDefinition as _swe_env_v1_SweEnvDefinition } from './swe_env/v1/SweEnv';
import type { Task as _swe_env_v1_Task, Task__Output as _swe_env_v1_Task__Output } from './swe_env/v1/Task';
import type { TaskSummary as _swe_env_v1_TaskSummary, TaskSummary__Output as _swe_env_v1_TaskSummary__Output } from './swe_env/v1/TaskSummary';
import type { TestResult as _swe_env_v1_TestResult, TestResult__Output as _swe_env_v1_TestResult__Output } from './swe_env/v1/TestResult';
import type { ToolSchema as _swe_env_v1_ToolSchema, ToolSchema__Output as _swe_env_v1_ToolSchema__Output } from './swe_env/v1/ToolSchema';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  google: {
    protobuf: {
      ListValue: MessageTypeDefinition<_google_protobuf_ListValue, _google_protobuf_ListValue__Output>
      NullValue: EnumTypeDefinition
      Struct: MessageTypeDefinition<_google_protobuf_Struct, _google_protobuf_Struct__Output>
      Value: MessageTypeDefinition<_google_protobuf_Value, _google_protobuf_Value__Output>
    }
  }
  swe_env: {
    v1: {
      Action: MessageTypeDefinition<_swe_env_v1_Action, _swe_env_v1_Action__Output>
      AssistantTurn: MessageTypeDefinition<_swe_env_v1_AssistantTurn, _swe_env_v1_AssistantTurn__Output>
      CloseRequest: MessageTypeDefinition<_swe_env_v1_CloseRequest, _swe_env_v1_CloseRequest__Output>
      CloseResponse: MessageTypeDefinition<_swe_env_v1_CloseResponse, _swe_env_v1_CloseResponse__Output>
      Durations: MessageTypeDefinition<_swe_env_v1_Durations, _swe_env_v1_Durations__Output>
      EffectiveOptions: MessageTypeDefinition<_swe_env_v1_EffectiveOptions, _swe_env_v1_EffectiveOptions__Output>
      EpisodeOptions: MessageTypeDefinition<_swe_env_v1_EpisodeOptions, _swe_env_v1_EpisodeOptions__Output>
      EpisodeSummary: MessageTypeDefinition<_swe_env_v1_EpisodeSummary, _swe_env_v1_EpisodeSummary__Output>
      EvalPlan: MessageTypeDefinition<_swe_env_v1_EvalPlan, _swe_env_v1_EvalPlan__Output>
      EvaluateRequest: MessageTypeDefinition<_swe_env_v1_EvaluateRequest, _swe_env_v1_EvaluateRequest__Output>
      EvaluateResponse: MessageTypeDefinition<_swe_env_v1_EvaluateResponse, _swe_env_v1_EvaluateResponse__Output>
      Finding: MessageTypeDefinition<_swe_env_v1_Finding, _swe_env_v1_Finding__Output>
      ForkRequest: MessageTypeDefinition<_swe_env_v1_ForkRequest, _swe_env_v1_ForkRequest__Output>
      ForkResponse: MessageTypeDefinition<_swe_env_v1_ForkResponse, _swe_env_v1_ForkResponse__Output>
      GetServerInfoRequest: MessageTypeDefinition<_swe_env_v1_GetServerInfoRequest, _swe_env_v1_GetServerInfoRequest__Output>
      GetTaskRequest: MessageTypeDefinition<_swe_env_v1_GetTaskRequest, _swe_env_v1_GetTaskRequest__Output>
      GradeReport: MessageTypeDefinition<_swe_env_v1_GradeReport, _swe_env_v1_GradeReport__Output>
      HarnessVerdict: MessageTypeDefinition<_swe_env_v1_HarnessVerdict, _swe_env_v1_HarnessVerdict__Output>
      ImagePhase: EnumTypeDefinition
      ImageState: MessageTypeDefinition<_swe_env_v1_ImageState, _swe_env_v1_ImageState__Output>
      ImageSupply: MessageTypeDefinition<_swe_env_v1_ImageSupply, _swe_env_v1_ImageSupply__Output>
      InstallRun: MessageTypeDefinition<_swe_env_v1_InstallRun, _swe_env_v1_InstallRun__Output>
      InterruptRequest: MessageTypeDefinition<_swe_env_v1_InterruptRequest, _swe_env_v1_InterruptRequest__Output>
      InterruptResponse: MessageTypeDefinition<_swe_env_v1_InterruptResponse, _swe_env_v1_InterruptResponse__Output>
      ListTasksRequest: MessageTypeDefinition<_swe_env_v1_ListTasksRequest, _swe_env_v1_ListTasksRequest__Output>
      ListTasksResponse: MessageTypeDefinition<_swe_env_v1_ListTasksResponse, _swe_env_v1_ListTasksResponse__Output>
      PrefetchRequest: MessageTypeDefinition<_swe_env_v1_PrefetchRequest, _swe_env_v1_PrefetchRequest__Output>
      PrefetchResponse: MessageTypeDefinition<_swe_env_v1_PrefetchResponse, _swe_env_v1_PrefetchResponse__Output>
      PrewarmRequest: MessageTypeDefinition<_swe_env_v1_PrewarmRequest, _swe_env_v1_PrewarmRequest__Output>
      PrewarmResponse: MessageTypeDefinition<_swe_env_v1_PrewarmResponse, _swe_env_v1_PrewarmResponse__Output>
      ReplayDivergence: MessageTypeDefinition<_swe_env_v1_ReplayDivergence, _swe_env_v1_ReplayDivergence__Output>
      ReplayRequest: MessageTypeDefinition<_swe_env_v1_ReplayRequest, _swe_env_v1_ReplayRequest__Output>
      ReplayResponse: MessageTypeDefinition<_swe_env_v1_ReplayResponse, _swe_env_v1_ReplayResponse__Output>
      ResetRequest: MessageTypeDefinition<_swe_env_v1_ResetRequest, _swe_env_v1_ResetRequest__Output>
      ResetResponse: MessageTypeDefinition<_swe_env_v1_ResetResponse, _swe_env_v1_ResetResponse__Output>
      Resolution: EnumTypeDefinition
      ServerInfo: MessageTypeDefinition<_swe_env_v1_ServerInfo, _swe_env_v1_ServerInfo__Output>
      StepRequest: MessageTypeDefinition<_swe_env_v1_StepRequest, _swe_env_v1_StepRequest__Output>
      StepResponse: MessageTypeDefinition<_swe_env_v1_StepResponse, _swe_env_v1_StepResponse__Output>
      StepStatus: EnumTypeDefinition
      SweEnv: SubtypeConstructor<typeof grpc.Client, _swe_env_v1_SweEnvClient> & { service: _swe_env_v1_SweEnvDefinition }
      Task: MessageTypeDefinition<_swe_env_v1_Task, _swe_env_v1_Task__Output>
      TaskSummary: MessageTypeDefinition<_swe_env_v1_TaskSummary, _swe_env_v1_TaskSummary__Output>
      TestResult: MessageTypeDefinition<_swe_env_v1_TestResult, _swe_env_v1_TestResult__Output>
      TestStatus: EnumTypeDefinition
      ToolSchema: MessageTypeDefinition<_swe_env_v1_ToolSchema, _swe_env_v1_ToolSchema__Output>
      TruncationPolicy: EnumTypeDefinition
    }
  }
}

