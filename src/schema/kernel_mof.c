/* Built-in kernel (NT Kernel Logger) and KernelTraceControl MOF classes: feeds the generated table
 * (src/schema/kernel_mof.tsv) into the schema registry.
 *
 * Names: provider_name is "MSNT_SystemTrace" for the kernel classes — the MOF provider class, which is what
 * tracerpt prints in RenderingInfo/Provider (docs/tracerpt.md R4); PerfView's "Windows Kernel" is TraceEvent's
 * own label. The KernelTraceControl synthetic classes (ImageID, SysConfig, MetaData, WinSat) are named
 * "KernelTraceControl" with that DLL's provider GUID; the heap, thread-pool, critical-section, WNF and MUI
 * classes keep their MOF provider class name. task_name is the MOF class name without its _Vn suffix
 * ("Process"), opcode_name and event_name the event-type name ("DCStart"). */
#include "schema/kernel_mof_table.h"
#include "schema/sources.h"

/* Kernel groups with a class GUID but no published layout (docs/etl-format.md §2.12): Job, Spare1 (LBR),
 * ModBound, Dpc, Cc, Hypervisor, HypervisorX. Their records stay undecoded but are attributed to the kernel
 * provider instead of a bare GUID. */
static const char *const classes_without_layouts[] = {
    "3282fc76-feed-498e-8aa7-e70f459d430e", "99134383-5248-43fc-834b-529454e75df3",
    "a9152f00-3f58-4bee-92a1-70c7d079d5dd", "b2d14872-7c5b-463d-8419-ee9bf7d23e04",
    "7687a439-f752-45b8-b741-321aec0f8df9", "7f2a405c-69b5-4bf9-a1f5-30e8f1afab5e",
    "2ce9a149-effe-42f0-a635-a1d39e26c8f2",
};

int etl_kernel_mof_register(etl_schema_registry *registry)
{
    if (!registry) return ETL_ERR_ARG;
    /* Every decoder registers the table; the second time there is nothing to do. */
    const etl_event_info *first = &etl_kernel_mof_events[0];
    const etl_event_info *known = etl_schema_registry_find(registry, ETL_KEY_CLASSIC, &first->event_guid,
                                                           first->descriptor.opcode, first->descriptor.version);
    if (known && known->source == ETL_SOURCE_KERNEL_MOF && known->descriptor.version == first->descriptor.version &&
        known->descriptor.opcode == first->descriptor.opcode && etl_guid_equal(&known->event_guid, &first->event_guid))
        return ETL_OK;
    for (size_t i = 0; i < sizeof classes_without_layouts / sizeof classes_without_layouts[0]; i++) {
        etl_guid guid;
        if (etl_guid_parse(classes_without_layouts[i], &guid) != 0) return ETL_ERR_ARG;
        int rc = etl_schema_registry_add_provider(registry, &guid, "MSNT_SystemTrace", ETL_SOURCE_KERNEL_MOF);
        if (rc != ETL_OK) return rc;
    }
    for (size_t i = 0; i < etl_kernel_mof_event_count; i++) {
        const etl_event_info *info = &etl_kernel_mof_events[i];
        int rc = etl_schema_registry_add(registry, info, ETL_KEY_CLASSIC);
        if (rc != ETL_OK) return rc;
        /* Records of a known class but an unknown type still get their provider named (classic records
         * carry the class GUID where manifest events carry the provider GUID). Re-adding a GUID is cheap. */
        if (i == 0 || !etl_guid_equal(&info->event_guid, &etl_kernel_mof_events[i - 1].event_guid)) {
            rc = etl_schema_registry_add_provider(registry, &info->event_guid, info->provider_name,
                                                  ETL_SOURCE_KERNEL_MOF);
            if (rc != ETL_OK) return rc;
        }
        if (i == 0 || !etl_guid_equal(&info->provider_guid, &etl_kernel_mof_events[i - 1].provider_guid)) {
            rc = etl_schema_registry_add_provider(registry, &info->provider_guid, info->provider_name,
                                                  ETL_SOURCE_KERNEL_MOF);
            if (rc != ETL_OK) return rc;
        }
    }
    return ETL_OK;
}
