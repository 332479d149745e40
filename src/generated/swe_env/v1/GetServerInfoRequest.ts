// Original file: proto/swe_env/v1/swe_env.proto


export interface GetServerInfoRequest {
}

export interface GetServerInfoRequest__Output {
}
