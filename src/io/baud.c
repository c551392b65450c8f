/* Baud rates termios has no code for (RoboBuggy's 76800, for one), through
 * Linux's termios2. Apart from serial.c because <asm/termbits.h> and
 * <termios.h> cannot be included together. */
#include <errno.h>
#include <sys/ioctl.h>

#include "port_internal.h"

#ifdef __linux__
#include <asm/termbits.h>

int bw_io_set_any_baud(int fd, int baud)
{
    struct termios2 t;
    if (ioctl(fd, TCGETS2, &t) != 0)
        return -errno;
    t.c_cflag &= ~(tcflag_t)CBAUD;
    t.c_cflag |= BOTHER;
    t.c_ispeed = (speed_t)baud;
    t.c_ospeed = (speed_t)baud;
    if (ioctl(fd, TCSETS2, &t) != 0)
        return -errno;
    return 0;
}
#else
int bw_io_set_any_baud(int fd, int baud)
{
    (void)fd;
    (void)baud;
    return -ENOTSUP;
}
#endif
