/* backends.c -- the table of back ends: every Backend (codegen.h) neuroc builds with.
 *
 * The driver reaches a back end only through this table and the Backend record: it looks
 * up --backend NAME here, takes backend_auto() for auto, and lists the rows in its
 * messages. Adding a back end: its Backend object in its own folder, and a row here.
 */
#include <string.h>

#include "codegen.h"

/* ORDER: the messages of --backend (driver.c) list the names in this order. */
const Backend *const backends[] = {&backend_c, &backend_cuda, &backend_opencl, NULL};

const Backend *backend_find(const char *name)
{
    for (int i = 0; backends[i]; i++)
        if (strcmp(backends[i]->name, name) == 0)
            return backends[i];
    return NULL;
}

/* The C back end: it runs wherever neuroc does; a GPU is asked for by name. */
const Backend *backend_auto(void)
{
    return &backend_c;
}
