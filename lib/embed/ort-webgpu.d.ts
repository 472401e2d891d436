// onnxruntime's WebGPU runtime (JSPI build), aliased in wxt.config.ts; the same API as the package's.
declare module 'backstory-ort-webgpu' {
  export * from 'onnxruntime-web';
}
