// Writes a Mockoon environment file (@mockoon/commons' own builders, so the file is in the
// installed CLI's format) with one route answering GET <path> with a fixed body:
// node mockoon-env.mjs <out file> <port> <path> <body file> <content-type>.
import { readFileSync, writeFileSync } from "node:fs";
import { BuildEnvironment, BuildHTTPRoute, BuildHeader } from "@mockoon/commons";

const [out, port, path, bodyFile, contentType] = process.argv.slice(2);
const environment = BuildEnvironment({ hasDefaultRoute: false, hasContentTypeHeader: false, hasCorsHeaders: false });
environment.name = "infra-doubles bench";
environment.port = Number(port);
environment.hostname = "127.0.0.1";
const route = BuildHTTPRoute();
route.method = "get";
route.endpoint = path.replace(/^\//, "");
const response = route.responses[0];
response.statusCode = 200;
response.body = readFileSync(bodyFile, "utf8");
response.headers = [BuildHeader("Content-Type", contentType)];
environment.routes = [route];
environment.rootChildren = [{ type: "route", uuid: route.uuid }];
writeFileSync(out, JSON.stringify(environment));
