// Original file: proto/swe_env/v1/swe_env.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CloseRequest as _swe_env_v1_CloseRequest, CloseRequest__Output as _swe_env_v1_CloseRequest__Output } from '../../swe_env/v1/CloseRequest';
import type { CloseResponse as _swe_env_v1_CloseResponse, CloseResponse__Output as _swe_env_v1_CloseResponse__Output } from '../../swe_env/v1/CloseResponse';
import type { EvaluateRequest as _swe_env_v1_EvaluateRequest, EvaluateRequest__Output as _swe_env_v1_EvaluateRequest__Output } from '../../swe_env/v1/EvaluateRequest';
import type { EvaluateResponse as _swe_env_v1_EvaluateResponse, EvaluateResponse__Output as _swe_env_v1_EvaluateResponse__Output } from '../../swe_env/v1/EvaluateResponse';
import type { ForkRequest as _swe_env_v1_ForkRequest, ForkRequest__Output as _swe_env_v1_ForkRequest__Output } from '../../swe_env/v1/ForkRequest';
import type { ForkResponse as _swe_env_v1_ForkResponse, ForkResponse__Output as _swe_env_v1_ForkResponse__Output } from '../../swe_env/v1/ForkResponse';
import type { GetServerInfoRequest as _swe_env_v1_GetServerInfoRequest, GetServerInfoRequest__Output as _swe_env_v1_GetServerInfoRequest__Output } from '../../swe_env/v1/GetServerInfoRequest';
import type { GetTaskRequest as _swe_env_v1_GetTaskRequest, GetTaskRequest__Output as _swe_env_v1_GetTaskRequest__Output } from '../../swe_env/v1/GetTaskRequest';
import type { InterruptRequest as _swe_env_v1_InterruptRequest, InterruptRequest__Output as _swe_env_v1_InterruptRequest__Output } from '../../swe_env/v1/InterruptRequest';
import type { InterruptResponse as _swe_env_v1_InterruptResponse, InterruptResponse__Output as _swe_env_v1_InterruptResponse__Output } from '../../swe_env/v1/InterruptResponse';
import type { ListTasksRequest as _swe_env_v1_ListTasksRequest, ListTasksRequest__Output as _swe_env_v1_ListTasksRequest__Output } from '../../swe_env/v1/ListTasksRequest';
import type { ListTasksResponse as _swe_env_v1_ListTasksResponse, ListTasksResponse__Output as _swe_env_v1_ListTasksResponse__Output } from '../../swe_env/v1/ListTasksResponse';
import type { PrefetchRequest as _swe_env_v1_PrefetchRequest, PrefetchRequest__Output as _swe_env_v1_PrefetchRequest__Output } from '../../swe_env/v1/PrefetchRequest';
import type { PrefetchResponse as _swe_env_v1_PrefetchResponse, PrefetchResponse__Output as _swe_env_v1_PrefetchResponse__Output } from '../../swe_env/v1/PrefetchResponse';
import type { PrewarmRequest as _swe_env_v1_PrewarmRequest, PrewarmRequest__Output as _swe_env_v1_PrewarmRequest__Output } from '../../swe_env/v1/PrewarmRequest';
import type { PrewarmResponse as _swe_env_v1_PrewarmResponse, PrewarmResponse__Output as _swe_env_v1_PrewarmResponse__Output } from '../../swe_env/v1/PrewarmResponse';
import type { ReplayRequest as _swe_env_v1_ReplayRequest, ReplayRequest__Output as _swe_env_v1_ReplayRequest__Output } from '../../swe_env/v1/ReplayRequest';
import type { ReplayResponse as _swe_env_v1_ReplayResponse, ReplayResponse__Output as _swe_env_v1_ReplayResponse__Output } from '../../swe_env/v1/ReplayResponse';
import type { ResetRequest as _swe_env_v1_ResetRequest, ResetRequest__Output as _swe_env_v1_ResetRequest__Output } from '../../swe_env/v1/ResetRequest';
import type { ResetResponse as _swe_env_v1_ResetResponse, ResetResponse__Output as _swe_env_v1_ResetResponse__Output } from '../../swe_env/v1/ResetResponse';
import type { ServerInfo as _swe_env_v1_ServerInfo, ServerInfo__Output as _swe_env_v1_ServerInfo__Output } from '../../swe_env/v1/ServerInfo';
import type { StepRequest as _swe_env_v1_StepRequest, StepRequest__Output as _swe_env_v1_StepRequest__Output } from '../../swe_env/v1/StepRequest';
import type { StepResponse as _swe_env_v1_StepResponse, StepResponse__Output as _swe_env_v1_StepResponse__Output } from '../../swe_env/v1/StepResponse';
import type { Task as _swe_env_v1_Task, Task__Output as _swe_env_v1_Task__Output } from '../../swe_env/v1/Task';

export interface SweEnvClient extends grpc.Client {
  Close(argument: _swe_env_v1_CloseRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_CloseResponse__Output>): grpc.ClientUnaryCall;
  Close(argument: _swe_env_v1_CloseRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_CloseResponse__Output>): grpc.ClientUnaryCall;
  Close(argument: _swe_env_v1_CloseRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_CloseResponse__Output>): grpc.ClientUnaryCall;
  Close(argument: _swe_env_v1_CloseRequest, callback: grpc.requestCallback<_swe_env_v1_CloseResponse__Output>): grpc.ClientUnaryCall;
  
  Evaluate(argument: _swe_env_v1_EvaluateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_EvaluateResponse__Output>): grpc.ClientUnaryCall;
  Evaluate(argument: _swe_env_v1_EvaluateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_EvaluateResponse__Output>): grpc.ClientUnaryCall;
  Evaluate(argument: _swe_env_v1_EvaluateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_EvaluateResponse__Output>): grpc.ClientUnaryCall;
  Evaluate(argument: _swe_env_v1_EvaluateRequest, callback: grpc.requestCallback<_swe_env_v1_EvaluateResponse__Output>): grpc.ClientUnaryCall;
  evaluate(argument: _swe_env_v1_EvaluateRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_EvaluateResponse__Output>): grpc.ClientUnaryCall;
  evaluate(argument: _swe_env_v1_EvaluateRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_EvaluateResponse__Output>): grpc.ClientUnaryCall;
  evaluate(argument: _swe_env_v1_EvaluateRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_EvaluateResponse__Output>): grpc.ClientUnaryCall;
  evaluate(argument: _swe_env_v1_EvaluateRequest, callback: grpc.requestCallback<_swe_env_v1_EvaluateResponse__Output>): grpc.ClientUnaryCall;
  
  Fork(argument: _swe_env_v1_ForkRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_ForkResponse__Output>): grpc.ClientUnaryCall;
  Fork(argument: _swe_env_v1_ForkRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_ForkResponse__Output>): grpc.ClientUnaryCall;
  Fork(argument: _swe_env_v1_ForkRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_ForkResponse__Output>): grpc.ClientUnaryCall;
  Fork(argument: _swe_env_v1_ForkRequest, callback: grpc.requestCallback<_swe_env_v1_ForkResponse__Output>): grpc.ClientUnaryCall;
  fork(argument: _swe_env_v1_ForkRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_ForkResponse__Output>): grpc.ClientUnaryCall;
  fork(argument: _swe_env_v1_ForkRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_ForkResponse__Output>): grpc.ClientUnaryCall;
  fork(argument: _swe_env_v1_ForkRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_ForkResponse__Output>): grpc.ClientUnaryCall;
  fork(argument: _swe_env_v1_ForkRequest, callback: grpc.requestCallback<_swe_env_v1_ForkResponse__Output>): grpc.ClientUnaryCall;
  
  GetServerInfo(argument: _swe_env_v1_GetServerInfoRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  GetServerInfo(argument: _swe_env_v1_GetServerInfoRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  GetServerInfo(argument: _swe_env_v1_GetServerInfoRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  GetServerInfo(argument: _swe_env_v1_GetServerInfoRequest, callback: grpc.requestCallback<_swe_env_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  getServerInfo(argument: _swe_env_v1_GetServerInfoRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  getServerInfo(argument: _swe_env_v1_GetServerInfoRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  getServerInfo(argument: _swe_env_v1_GetServerInfoRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  getServerInfo(argument: _swe_env_v1_GetServerInfoRequest, callback: grpc.requestCallback<_swe_env_v1_ServerInfo__Output>): grpc.ClientUnaryCall;
  
  GetTask(argument: _swe_env_v1_GetTaskRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_Task__Output>): grpc.ClientUnaryCall;
  GetTask(argument: _swe_env_v1_GetTaskRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_Task__Output>): grpc.ClientUnaryCall;
  GetTask(argument: _swe_env_v1_GetTaskRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_Task__Output>): grpc.ClientUnaryCall;
  GetTask(argument: _swe_env_v1_GetTaskRequest, callback: grpc.requestCallback<_swe_env_v1_Task__Output>): grpc.ClientUnaryCall;
  getTask(argument: _swe_env_v1_GetTaskRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_Task__Output>): grpc.ClientUnaryCall;
  getTask(argument: _swe_env_v1_GetTaskRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_Task__Output>): grpc.ClientUnaryCall;
  getTask(argument: _swe_env_v1_GetTaskRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_Task__Output>): grpc.ClientUnaryCall;
  getTask(argument: _swe_env_v1_GetTaskRequest, callback: grpc.requestCallback<_swe_env_v1_Task__Output>): grpc.ClientUnaryCall;
  
  Interrupt(argument: _swe_env_v1_InterruptRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_InterruptResponse__Output>): grpc.ClientUnaryCall;
  Interrupt(argument: _swe_env_v1_InterruptRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_InterruptResponse__Output>): grpc.ClientUnaryCall;
  Interrupt(argument: _swe_env_v1_InterruptRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_InterruptResponse__Output>): grpc.ClientUnaryCall;
  Interrupt(argument: _swe_env_v1_InterruptRequest, callback: grpc.requestCallback<_swe_env_v1_InterruptResponse__Output>): grpc.ClientUnaryCall;
  interrupt(argument: _swe_env_v1_InterruptRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_InterruptResponse__Output>): grpc.ClientUnaryCall;
  interrupt(argument: _swe_env_v1_InterruptRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_InterruptResponse__Output>): grpc.ClientUnaryCall;
  interrupt(argument: _swe_env_v1_InterruptRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_InterruptResponse__Output>): grpc.ClientUnaryCall;
  interrupt(argument: _swe_env_v1_InterruptRequest, callback: grpc.requestCallback<_swe_env_v1_InterruptResponse__Output>): grpc.ClientUnaryCall;
  
  ListTasks(argument: _swe_env_v1_ListTasksRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_ListTasksResponse__Output>): grpc.ClientUnaryCall;
  ListTasks(argument: _swe_env_v1_ListTasksRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_ListTasksResponse__Output>): grpc.ClientUnaryCall;
  ListTasks(argument: _swe_env_v1_ListTasksRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_ListTasksResponse__Output>): grpc.ClientUnaryCall;
  ListTasks(argument: _swe_env_v1_ListTasksRequest, callback: grpc.requestCallback<_swe_env_v1_ListTasksResponse__Output>): grpc.ClientUnaryCall;
  listTasks(argument: _swe_env_v1_ListTasksRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_ListTasksResponse__Output>): grpc.ClientUnaryCall;
  listTasks(argument: _swe_env_v1_ListTasksRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_ListTasksResponse__Output>): grpc.ClientUnaryCall;
  listTasks(argument: _swe_env_v1_ListTasksRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_ListTasksResponse__Output>): grpc.ClientUnaryCall;
  listTasks(argument: _swe_env_v1_ListTasksRequest, callback: grpc.requestCallback<_swe_env_v1_ListTasksResponse__Output>): grpc.ClientUnaryCall;
  
  Prefetch(argument: _swe_env_v1_PrefetchRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_PrefetchResponse__Output>): grpc.ClientUnaryCall;
  Prefetch(argument: _swe_env_v1_PrefetchRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_PrefetchResponse__Output>): grpc.ClientUnaryCall;
  Prefetch(argument: _swe_env_v1_PrefetchRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_PrefetchResponse__Output>): grpc.ClientUnaryCall;
  Prefetch(argument: _swe_env_v1_PrefetchRequest, callback: grpc.requestCallback<_swe_env_v1_PrefetchResponse__Output>): grpc.ClientUnaryCall;
  prefetch(argument: _swe_env_v1_PrefetchRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_PrefetchResponse__Output>): grpc.ClientUnaryCall;
  prefetch(argument: _swe_env_v1_PrefetchRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_PrefetchResponse__Output>): grpc.ClientUnaryCall;
  prefetch(argument: _swe_env_v1_PrefetchRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_PrefetchResponse__Output>): grpc.ClientUnaryCall;
  prefetch(argument: _swe_env_v1_PrefetchRequest, callback: grpc.requestCallback<_swe_env_v1_PrefetchResponse__Output>): grpc.ClientUnaryCall;
  
  Prewarm(argument: _swe_env_v1_PrewarmRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_PrewarmResponse__Output>): grpc.ClientUnaryCall;
  Prewarm(argument: _swe_env_v1_PrewarmRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_PrewarmResponse__Output>): grpc.ClientUnaryCall;
  Prewarm(argument: _swe_env_v1_PrewarmRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_PrewarmResponse__Output>): grpc.ClientUnaryCall;
  Prewarm(argument: _swe_env_v1_PrewarmRequest, callback: grpc.requestCallback<_swe_env_v1_PrewarmResponse__Output>): grpc.ClientUnaryCall;
  prewarm(argument: _swe_env_v1_PrewarmRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_PrewarmResponse__Output>): grpc.ClientUnaryCall;
  prewarm(argument: _swe_env_v1_PrewarmRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_PrewarmResponse__Output>): grpc.ClientUnaryCall;
  prewarm(argument: _swe_env_v1_PrewarmRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_PrewarmResponse__Output>): grpc.ClientUnaryCall;
  prewarm(argument: _swe_env_v1_PrewarmRequest, callback: grpc.requestCallback<_swe_env_v1_PrewarmResponse__Output>): grpc.ClientUnaryCall;
  
  Replay(argument: _swe_env_v1_ReplayRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_ReplayResponse__Output>): grpc.ClientUnaryCall;
  Replay(argument: _swe_env_v1_ReplayRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_ReplayResponse__Output>): grpc.ClientUnaryCall;
  Replay(argument: _swe_env_v1_ReplayRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_ReplayResponse__Output>): grpc.ClientUnaryCall;
  Replay(argument: _swe_env_v1_ReplayRequest, callback: grpc.requestCallback<_swe_env_v1_ReplayResponse__Output>): grpc.ClientUnaryCall;
  replay(argument: _swe_env_v1_ReplayRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_ReplayResponse__Output>): grpc.ClientUnaryCall;
  replay(argument: _swe_env_v1_ReplayRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_ReplayResponse__Output>): grpc.ClientUnaryCall;
  replay(argument: _swe_env_v1_ReplayRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_ReplayResponse__Output>): grpc.ClientUnaryCall;
  replay(argument: _swe_env_v1_ReplayRequest, callback: grpc.requestCallback<_swe_env_v1_ReplayResponse__Output>): grpc.ClientUnaryCall;
  
  Reset(argument: _swe_env_v1_ResetRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_ResetResponse__Output>): grpc.ClientUnaryCall;
  Reset(argument: _swe_env_v1_ResetRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_ResetResponse__Output>): grpc.ClientUnaryCall;
  Reset(argument: _swe_env_v1_ResetRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_ResetResponse__Output>): grpc.ClientUnaryCall;
  Reset(argument: _swe_env_v1_ResetRequest, callback: grpc.requestCallback<_swe_env_v1_ResetResponse__Output>): grpc.ClientUnaryCall;
  reset(argument: _swe_env_v1_ResetRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_ResetResponse__Output>): grpc.ClientUnaryCall;
  reset(argument: _swe_env_v1_ResetRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_ResetResponse__Output>): grpc.ClientUnaryCall;
  reset(argument: _swe_env_v1_ResetRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_ResetResponse__Output>): grpc.ClientUnaryCall;
  reset(argument: _swe_env_v1_ResetRequest, callback: grpc.requestCallback<_swe_env_v1_ResetResponse__Output>): grpc.ClientUnaryCall;
  
  Step(argument: _swe_env_v1_StepRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_StepResponse__Output>): grpc.ClientUnaryCall;
  Step(argument: _swe_env_v1_StepRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_StepResponse__Output>): grpc.ClientUnaryCall;
  Step(argument: _swe_env_v1_StepRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_StepResponse__Output>): grpc.ClientUnaryCall;
  Step(argument: _swe_env_v1_StepRequest, callback: grpc.requestCallback<_swe_env_v1_StepResponse__Output>): grpc.ClientUnaryCall;
  step(argument: _swe_env_v1_StepRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_StepResponse__Output>): grpc.ClientUnaryCall;
  step(argument: _swe_env_v1_StepRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_swe_env_v1_StepResponse__Output>): grpc.ClientUnaryCall;
  step(argument: _swe_env_v1_StepRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_swe_env_v1_StepResponse__Output>): grpc.ClientUnaryCall;
  step(argument: _swe_env_v1_StepRequest, callback: grpc.requestCallback<_swe_env_v1_StepResponse__Output>): grpc.ClientUnaryCall;
  
}

export interface SweEnvHandlers extends grpc.UntypedServiceImplementation {
  Close: grpc.handleUnaryCall<_swe_env_v1_CloseRequest__Output, _swe_env_v1_CloseResponse>;
  
  Evaluate: grpc.handleUnaryCall<_swe_env_v1_EvaluateRequest__Output, _swe_env_v1_EvaluateResponse>;
  
  Fork: grpc.handleUnaryCall<_swe_env_v1_ForkRequest__Output, _swe_env_v1_ForkResponse>;
  
  GetServerInfo: grpc.handleUnaryCall<_swe_env_v1_GetServerInfoRequest__Output, _swe_env_v1_ServerInfo>;
  
  GetTask: grpc.handleUnaryCall<_swe_env_v1_GetTaskRequest__Output, _swe_env_v1_Task>;
  
  Interrupt: grpc.handleUnaryCall<_swe_env_v1_InterruptRequest__Output, _swe_env_v1_InterruptResponse>;
  
  ListTasks: grpc.handleUnaryCall<_swe_env_v1_ListTasksRequest__Output, _swe_env_v1_ListTasksResponse>;
  
  Prefetch: grpc.handleUnaryCall<_swe_env_v1_PrefetchRequest__Output, _swe_env_v1_PrefetchResponse>;
  
  Prewarm: grpc.handleUnaryCall<_swe_env_v1_PrewarmRequest__Output, _swe_env_v1_PrewarmResponse>;
  
  Replay: grpc.handleUnaryCall<_swe_env_v1_ReplayRequest__Output, _swe_env_v1_ReplayResponse>;
  
  Reset: grpc.handleUnaryCall<_swe_env_v1_ResetRequest__Output, _swe_env_v1_ResetResponse>;
  
  Step: grpc.handleUnaryCall<_swe_env_v1_StepRequest__Output, _swe_env_v1_StepResponse>;
  
}

export interface SweEnvDefinition extends grpc.ServiceDefinition {
  Close: MethodDefinition<_swe_env_v1_CloseRequest, _swe_env_v1_CloseResponse, _swe_env_v1_CloseRequest__Output, _swe_env_v1_CloseResponse__Output>
  Evaluate: MethodDefinition<_swe_env_v1_EvaluateRequest, _swe_env_v1_EvaluateResponse, _swe_env_v1_EvaluateRequest__Output, _swe_env_v1_EvaluateResponse__Output>
  Fork: MethodDefinition<_swe_env_v1_ForkRequest, _swe_env_v1_ForkResponse, _swe_env_v1_ForkRequest__Output, _swe_env_v1_ForkResponse__Output>
  GetServerInfo: MethodDefinition<_swe_env_v1_GetServerInfoRequest, _swe_env_v1_ServerInfo, _swe_env_v1_GetServerInfoRequest__Output, _swe_env_v1_ServerInfo__Output>
  GetTask: MethodDefinition<_swe_env_v1_GetTaskRequest, _swe_env_v1_Task, _swe_env_v1_GetTaskRequest__Output, _swe_env_v1_Task__Output>
  Interrupt: MethodDefinition<_swe_env_v1_InterruptRequest, _swe_env_v1_InterruptResponse, _swe_env_v1_InterruptRequest__Output, _swe_env_v1_InterruptResponse__Output>
  ListTasks: MethodDefinition<_swe_env_v1_ListTasksRequest, _swe_env_v1_ListTasksResponse, _swe_env_v1_ListTasksRequest__Output, _swe_env_v1_ListTasksResponse__Output>
  Prefetch: MethodDefinition<_swe_env_v1_PrefetchRequest, _swe_env_v1_PrefetchResponse, _swe_env_v1_PrefetchRequest__Output, _swe_env_v1_PrefetchResponse__Output>
  Prewarm: MethodDefinition<_swe_env_v1_PrewarmRequest, _swe_env_v1_PrewarmResponse, _swe_env_v1_PrewarmRequest__Output, _swe_env_v1_PrewarmResponse__Output>
  Replay: MethodDefinition<_swe_env_v1_ReplayRequest, _swe_env_v1_ReplayResponse, _swe_env_v1_ReplayRequest__Output, _swe_env_v1_ReplayResponse__Output>
  Reset: MethodDefinition<_swe_env_v1_ResetRequest, _swe_env_v1_ResetResponse, _swe_env_v1_ResetRequest__Output, _swe_env_v1_ResetResponse__Output>
  Step: MethodDefinition<_swe_env_v1_StepRequest, _swe_env_v1_StepResponse, _swe_env_v1_StepRequest__Output, _swe_env_v1_StepResponse__Output>
}
