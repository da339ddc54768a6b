/**
 * On Node 20 the AWS SDK prints an eight-line NodeVersionSupportWarning (its releases after
 * January 2027 need Node 22) at the first S3 client of every server start and command, above
 * the one-line answers operators read. The SDK's documented switch
 * (AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=true, aws/aws-sdk-js-v3#7983) turns it
 * off; set only on Node < 22, and never over an operator's own value. Imported first by the
 * process entries (main.ts, cliMain.ts), not by library code.
 */
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
