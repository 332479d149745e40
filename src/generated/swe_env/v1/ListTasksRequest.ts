// Original file: proto/swe_env/v1/swe_env.proto


export interface ListTasksRequest {
  'pageSize'?: (number);
  'pageToken'?: (string);
  'dataset'?: (string);
}

export interface ListTasksRequest__Output {
  'pageSize': (number);
  'pageToken': (string);
  'dataset': (string);
}
