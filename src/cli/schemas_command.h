/* `etlconv schemas [TRACE...] [-import FILE|DIR...] [-of text|json|manifest] [-o FILE] [--info]`: lists the
 * providers, events and fields of traces (the schemas their events were decoded with), of schema files
 * (manifests, binaries, folders), or of the bundled manifests when given neither; --info counts the events of
 * each provider of the traces, decoded and not. */
#ifndef ETLCONV_SCHEMAS_COMMAND_H
#define ETLCONV_SCHEMAS_COMMAND_H

/* argv[0] is "schemas". Returns an ETLCONV_EXIT_* status. */
int etlconv_schemas_command(int argc, char **argv);

#endif
