/* TMF statements from a PDB: the S_ANNOTATION records tagged "TMF:" that WPP's __annotation calls leave in the
 * module symbol streams (what tracepdb and tracefmt -pdb read). */
#ifndef ETL_SCHEMA_WPP_PDB_H
#define ETL_SCHEMA_WPP_PDB_H

#include "schema/wpp/wpp.h"

/* Reads the PDB's MSF container, its DBI stream's module list and every module symbol stream; each
 * "TMF:" annotation becomes TMF text (its strings joined by newlines, FUNC=<enclosing procedure> added to the
 * #typev line as tracepdb writes it) and is parsed into the store. ETL_ERR_FORMAT when the file is no PDB
 * or a structure is out of bounds (err names file and byte offset); ETL_ERR_SCHEMA when it holds no TMF
 * annotation. */
int wpp_pdb_load_file(wpp_store *store, const char *path, etl_error *err, etl_tmf_load_stats *stats);

/* The same over a PDB already in memory (fuzzing, tests); `origin` names it in errors. */
int wpp_pdb_load_memory(wpp_store *store, const uint8_t *data, size_t size, const char *origin, etl_error *err,
                        etl_tmf_load_stats *stats);

/* pdb_types.c: whether statements [first, end) of the store name an ItemEnum/ItemFlagsEnum table it lacks, and
 * those tables taken from a PDB's TPI stream (its LF_ENUM records), as tracepdb writes them as #enumv. */
int wpp_pdb_enums_missing(const wpp_store *store, size_t first_statement);
int wpp_pdb_take_enums(wpp_store *store, size_t first_statement, const uint8_t *tpi, size_t size,
                       etl_tmf_load_stats *stats);

#endif
